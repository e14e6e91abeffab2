import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * A Sluice server in a process of its own, started from the compiled CLI as an operator would
 * run it. Benchmarks that measure the server's own memory or its behaviour under hostile load
 * need it out of their thread, and so do the tests of start-up, shutdown and crashes (they
 * import it through test/support/child.ts).
 */

/** CLI is the compiled entry point, the same file the package's `sluice` bin runs. */
export const CLI = path.resolve('dist/src/cli/main.js');

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
