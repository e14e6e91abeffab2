import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { CLI, type ChildServer } from '../../bench/harness/childServer.js';

/** The child server starter lives in bench/harness/ (the adversarial benchmark starts the same server); tests import it from here. */
export { CLI, startChildServer, stopChildServer, type ChildServer } from '../../bench/harness/childServer.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): CliResult {
  const res = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** CliWorkspace is a fresh data directory for each test, the CLI bound to it, and the child servers to stop afterwards. */
export interface CliWorkspace {
  readonly dataDir: string;
  readonly children: ChildServer[];
  cli(...args: string[]): CliResult;
}

/** useCliWorkspace registers the hooks that give each test of the calling suite its own CliWorkspace. */
export function useCliWorkspace(prefix: string): CliWorkspace {
  let dataDir = '';
  const children: ChildServer[] = [];
  beforeEach(async () => {
    expect(existsSync(CLI), 'run `npm run build` first (npm test does)').toBe(true);
    dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.proc.kill('SIGKILL');
      await c.exit;
    }
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    children,
    cli: (...args) => runCli([...args, '--data-dir', dataDir]),
  };
}
