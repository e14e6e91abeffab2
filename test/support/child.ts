import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';

/** CLI is the compiled entry point, the same file the package's `sluice` bin runs. */
export const CLI = path.resolve('dist/src/cli/main.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): CliResult {
  const res = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** exit resolves with the exit code once the process ends. */
  exit: Promise<number | null>;
}

/** startChildServer runs `sluice serve` as its own process and waits until it listens (at most `startTimeoutMs`). */
export async function startChildServer(env: Record<string, string>, startTimeoutMs = 15_000): Promise<ChildServer> {
  const proc = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, SVC_HOST: '127.0.0.1', SVC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const m = /"port":(\d+)[^\n]*sluice listening/.exec(out);
    if (m) return { proc, url: `http://127.0.0.1:${m[1]}`, stdout: () => out, stderr: () => err, exit };
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not start:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** stopChildServer ends a child server with SIGTERM (its graceful path) and removes its data directory. */
export async function stopChildServer(server: ChildServer | undefined, dataDir: string): Promise<void> {
  if (server) {
    server.proc.kill('SIGTERM');
    await server.exit;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
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
