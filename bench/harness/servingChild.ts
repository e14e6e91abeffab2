import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import readline from 'node:readline';
import { runWhenDirect } from '../runDirect.js';

/**
 * Benchmarks that compare servers side by side (two builds, or one build under two settings)
 * run each in a child process of its own, so the CPU each spends can be read from /proc apart
 * from the benchmark's own. The child is the benchmark's own module started with arguments
 * that make it serve: it loads its data, prints one JSON line starting `{"port"` and serves
 * until its stdin closes.
 */


/** ServingChild is a child serving a benchmark's data, with what it announced (its port, key and data's end). */
export interface ServingChild {
  label: string;
  child: ChildProcess;
  port: number;
  key: string;
  endMs: number;
}

/** startServingChild runs `script` with `args` and resolves once it announces where it listens. */
export async function startServingChild(label: string, script: string, args: string[]): Promise<ServingChild> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => {
      if (l.startsWith('{"port"')) resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`${label}: server exited with ${code}`)));
  });
  return { label, child, ...(JSON.parse(line) as { port: number; key: string; endMs: number }) };
}

/** announceServing prints the line startServingChild waits for and stops the service once stdin closes. */
export function announceServing(where: { port: number; key: string; endMs: number }, stop: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify({ port: where.port, key: where.key, endMs: where.endMs })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void stop().then(() => process.exit(0));
  });
}

/** threadCpuNs reads every thread's CPU time so far, in nanoseconds (/proc/<pid>/task/<tid>/schedstat, Linux only). */
export function threadCpuNs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/**
 * serveOrRun is the end of a benchmark module that is its own serving child: started with
 * `--serve <arg>` it serves, otherwise it runs the benchmark when started directly.
 */
export function serveOrRun(moduleUrl: string, serve: (arg: string) => Promise<void>, main: () => Promise<void>): void {
  const at = process.argv.indexOf('--serve');
  if (at > 0) void serve(process.argv[at + 1]);
  else runWhenDirect(moduleUrl, main);
}

/** stopServingChildren closes each child's stdin, which makes it stop its service and exit. */
export function stopServingChildren(children: readonly ServingChild[]): void {
  for (const c of children) c.child.stdin!.end();
}
