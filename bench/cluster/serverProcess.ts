import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A backend server (PostgreSQL, s3rver, a nats-server node) in a child process: started, waited
 * for until it answers, and stopped, the same way for each, so that a server that dies at start,
 * or never answers, fails the start with what it wrote rather than leaving a process behind.
 */

/** OUTPUT_TAIL is how much of a server's stderr is kept for error messages. */
const OUTPUT_TAIL = 8000;

export interface ServerProcess {
  readonly child: ChildProcess;
  /** exited resolves once the process has ended, or could not be started at all. */
  readonly exited: Promise<void>;
  /** output is the tail of what the server wrote to stderr. */
  output(): string;
}

export interface ServerSpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** uid and gid run the server as another user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** spawnServer starts `command` with stdin and stdout closed, keeping its stderr's tail. */
export function spawnServer(command: string, args: string[], options: ServerSpawnOptions = {}): ServerProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-OUTPUT_TAIL)));
  // A missing binary is reported as an 'error' event, never as an exit.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      output += `\n${err.message}`;
      resolve();
    });
  });
  return { child, exited, output: () => output };
}

/**
 * waitUntilServing polls `ready` every `pollMs` until it answers true. When the server ends
 * first, or `timeoutMs` pass, the server is killed and the start fails with its output.
 */
export async function waitUntilServing(server: ServerProcess, name: string, ready: () => Promise<boolean>, timeoutMs: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void server.exited.then(() => (ended = true));
  while (!(await ready())) {
    if (ended || !running(server.child) || Date.now() > deadline) {
      server.child.kill('SIGKILL');
      throw new Error(`${name} did not start: ${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * stopServer sends `signal` and waits for the server to end; with `killAfterMs`, a server that
 * has not ended by then is killed. A server that already ended is left as it is.
 */
export async function stopServer(server: ServerProcess | undefined, signal: NodeJS.Signals, killAfterMs?: number): Promise<void> {
  if (server === undefined || !running(server.child)) return;
  server.child.kill(signal);
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => server.child.kill('SIGKILL'), killAfterMs);
  await server.exited;
  clearTimeout(timer);
}
