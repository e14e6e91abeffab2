import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Every process and temporary directory the harness creates is registered here, so that a
 * normal end, a thrown error, SIGINT or SIGTERM all leave nothing running and nothing on disk.
 * On a signal the children are killed and awaited before the harness exits, so none is left
 * for anyone to reap; the exit hook is the synchronous last resort for any other way out.
 */
const children = new Set<ChildProcess>();
const directories = new Set<string>();
const cleanUps = new Set<() => Promise<void>>();
let hooked = false;

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function killChildren(): void {
  for (const child of children) if (isAlive(child)) child.kill('SIGKILL');
}

function removeDirectories(): void {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  directories.clear();
}

async function cleanUpAndExit(): Promise<void> {
  const exits = [...children].filter(isAlive).map((child) => new Promise((resolve) => child.once('exit', resolve)));
  killChildren();
  // Servers started elsewhere (bench/cluster's backends) are stopped by their own hooks.
  const hooks = [...cleanUps].map((hook) => hook().catch(() => {}));
  await Promise.race([Promise.all([...exits, ...hooks]), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  children.clear();
  removeDirectories();
  process.exit(130);
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    killChildren();
    removeDirectories();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUpAndExit());
}

/**
 * onSignalCleanUp registers `hook` to run when SIGINT or SIGTERM ends the harness, for servers
 * whose processes this module does not start itself; the returned function unregisters it.
 */
export function onSignalCleanUp(hook: () => Promise<void>): () => void {
  hookExit();
  cleanUps.add(hook);
  return () => void cleanUps.delete(hook);
}

/** temporaryDirectory makes a directory that is removed when the harness ends, however it ends. */
export function temporaryDirectory(prefix: string): string {
  hookExit();
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  directories.add(dir);
  return dir;
}

export interface ManagedProcess {
  readonly proc: ChildProcess;
  readonly name: string;
  output(): string;
  /** pid of the process, for reading its CPU time and memory from /proc. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** startProcess spawns a child whose output is kept (the last 64 KiB) for error messages. */
export function startProcess(name: string, command: string, args: string[], env: Record<string, string> = {}): ManagedProcess {
  hookExit();
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  let output = '';
  const keep = (d: Buffer): void => {
    output = (output + d.toString()).slice(-65_536);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  return {
    proc,
    name,
    pid: proc.pid,
    output: () => output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      children.delete(proc);
    },
  };
}

/**
 * EPHEMERAL_LOW is the first port the kernel hands out for outgoing connections. A port asked
 * of the kernel with listen(0) comes from that same range, so between releasing it and a child
 * binding it any outgoing connection on the machine may take it as its source port; ports below
 * the range are only ever taken by explicit binds.
 */
const EPHEMERAL_LOW = ((): number => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
})();
const PORT_FLOOR = 10_000;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * freePort finds a loopback port nobody listens on for a child process that takes a fixed port
 * argument: a random one below the ephemeral range (see EPHEMERAL_LOW), never the same twice in
 * this process, so parallel suites and outgoing connections do not race the child for it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_FLOOR + Math.floor(Math.random() * (EPHEMERAL_LOW - PORT_FLOOR));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free loopback port found in ${PORT_FLOOR}-${EPHEMERAL_LOW - 1}`);
}

/** waitFor polls `ready` until it is true, failing with the process's output after `timeoutMs`. */
export async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs: number, owner?: ManagedProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (owner !== undefined && (owner.proc.exitCode !== null || owner.proc.signalCode !== null)) {
      throw new Error(`${owner.name} exited while waiting for ${what}:\n${owner.output()}`);
    }
    try {
      if (await ready()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${owner ? `:\n${owner.output()}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
