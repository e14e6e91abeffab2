import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startChildServer, useCliWorkspace } from '../support/child.js';
import { isProcessAlive } from '../../src/processAlive.js';

/** deadPid is the pid of a process that has certainly exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '0']);
  return done.pid!;
}

describe('sluice serve start-up', () => {
  const ws = useCliWorkspace('sluice-process-');

  it('refuses a busy port, naming it, before creating or printing a key', async () => {
    const first = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(first);
    const port = new URL(first.url).port;
    const otherDir = await mkdtemp(path.join(tmpdir(), 'sluice-process-other-'));
    try {
      const second = runCli(['serve'], { SVC_DATA_DIR: otherDir, SVC_HOST: '127.0.0.1', SVC_PORT: port });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`port ${port}`);
      expect(second.stderr).not.toContain('API key:');
      expect(second.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(existsSync(path.join(otherDir, 'meta'))).toBe(false);
      // The first server still answers every request.
      for (let i = 0; i < 5; i++) expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('refuses a data directory another server uses, and releases it on stop', async () => {
    const first = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(first);
    const second = runCli(['serve'], { SVC_DATA_DIR: ws.dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0' });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`in use by process ${first.proc.pid}`);
    expect(second.stderr).toContain('sluice.lock');
    first.proc.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    ws.children.pop();
    expect(existsSync(path.join(ws.dataDir, 'sluice.lock'))).toBe(false);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const lock = path.join(ws.dataDir, 'sluice.lock');
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname() }) + '\n');
    const srv = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(srv);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: srv.proc.pid });
  });

  it('stops cleanly with exit 0 when SIGINT arrives twice (Ctrl-C through npm)', async () => {
    const srv = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(srv);
    srv.proc.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    srv.proc.kill('SIGINT');
    expect(await srv.exit).toBe(0);
    ws.children.pop();
    expect(srv.stdout()).toContain('sluice stopped');
  });

  it('writes log lines in batches that still appear within a second, and every one of them before it exits', async () => {
    const srv = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(srv);
    const logged = (query: string): boolean => srv.stdout().includes(`"query":"${query}"`);
    expect((await fetch(`${srv.url}/healthz?probe=first`)).status).toBe(200);
    // No other write follows it, so only the flush timer can bring it out.
    const deadline = Date.now() + 1000;
    while (!logged('probe=first') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(logged('probe=first')).toBe(true);
    for (let i = 0; i < 3; i++) expect((await fetch(`${srv.url}/healthz?probe=last-${i}`)).status).toBe(200);
    srv.proc.kill('SIGTERM');
    expect(await srv.exit).toBe(0);
    ws.children.pop();
    for (let i = 0; i < 3; i++) expect(logged(`probe=last-${i}`)).toBe(true);
  });
});

describe('npm start', () => {
  it('stops the server when npm gets SIGTERM, leaving no node process behind', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-npm-'));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0' };
    // --ignore-scripts skips the prestart build: the tests run on a built tree.
    const npm = spawn('npm', ['start', '--ignore-scripts', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    let serverPid: number | undefined;
    try {
      const deadline = Date.now() + 30_000;
      while (!out.includes('sluice listening')) {
        expect(Date.now(), out).toBeLessThan(deadline);
        expect(npm.exitCode, out).toBeNull();
        await new Promise((r) => setTimeout(r, 50));
      }
      serverPid = Number(JSON.parse(readFileSync(path.join(dataDir, 'sluice.lock'), 'utf8')).pid);
      expect(serverPid).not.toBe(npm.pid);
      expect(isProcessAlive(serverPid)).toBe(true);
      npm.kill('SIGTERM');
      expect(await exited).toBe(0);
      const gone = Date.now() + 5000;
      while (isProcessAlive(serverPid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
      expect(isProcessAlive(serverPid)).toBe(false);
      expect(out).toContain('sluice stopped');
    } finally {
      if (serverPid !== undefined && isProcessAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
      npm.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('sluice CLI help and version', () => {
  it('prints the version', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const res = runCli([flag]);
      expect(res.status).toBe(0);
      expect(res.stdout).toContain(`sluice ${version}`);
    }
  });

  it('answers --help for every command and command group', () => {
    const top = runCli(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?) {2,}/gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThan(10);
    for (const name of commands) {
      const res = runCli([...name.split(' '), '--help']);
      expect(res.status, name).toBe(0);
      expect(res.stdout, name).toContain(`Usage: sluice ${name}`);
    }
    for (const group of new Set(commands.filter((c) => c.includes(' ')).map((c) => c.split(' ')[0]))) {
      const res = runCli([group, '--help']);
      expect(res.status, group).toBe(0);
      expect(res.stdout).toContain(`Usage: sluice ${group} <command>`);
      for (const name of commands.filter((c) => c.startsWith(`${group} `))) expect(res.stdout).toContain(name);
    }
  });
});

describe('sluice gen', () => {
  const ws = useCliWorkspace('sluice-gen-');

  it('reports backfill progress on stderr and the result on stdout', async () => {
    const srv = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    ws.children.push(srv);
    const key = /API key: (slk_\S+)/.exec(srv.stderr())![1];
    const res = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.resolve('dist/src/cli/main.js'), 'gen', '--key', key, '--url', srv.url, '--backfill', '10m', '--logs-per-second', '2']);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (status) => resolve({ status, stdout, stderr }));
    });
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    // Ten minutes of 15 s scrapes: 40 or 41 depending on where now falls.
    expect(lines[0]).toMatch(/^backfill: \d+% \(1\/4[01]\)/);
    const last = /^backfill: 100% \((\d+)\/(\d+)\) scrapes, \d+ samples, \d+ log lines$/.exec(lines.at(-1)!);
    expect(last?.[1]).toBe(last?.[2]);
    expect(res.stdout).toMatch(/^backfilled \d+ samples and \d+ log lines\n$/);
  }, 60_000);
});
