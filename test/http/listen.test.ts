import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/child.js';
import { startTestServer } from '../support/server.js';
import { freePort } from '../../bench/peers/processes.js';

/** serveOnce runs `sluice serve` until it exits by itself (or 90 s pass on a loaded machine). */
async function serveOnce(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { status, stdout, stderr };
}

describe('listening', () => {
  // uWebSockets.js listens with SO_REUSEPORT unless told otherwise: a second server on the same
  // port would start and take part of the connections instead of failing.
  it('refuses to start a second server on a port one already listens on', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const first = await startTestServer({ SVC_PORT: String(port) });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-listen-'));
    try {
      const second = await serveOnce(['--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir]);
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(second.stdout).not.toContain('sluice listening');
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await first.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
