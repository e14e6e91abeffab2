import { pathToFileURL } from 'node:url';

/**
 * runWhenDirect runs a benchmark's main when its file is executed itself (`node
 * dist/bench/x.bench.js`) rather than imported by bench/run.ts, reporting a failure through
 * the exit code.
 */
export function runWhenDirect(moduleUrl: string, main: () => Promise<void> | void): void {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  Promise.resolve()
    .then(main)
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
