import { fileURLToPath } from 'node:url';

/**
 * The process-level frame of a macro harness (`bench:peers`, `bench:replicas`): where the
 * checkout is, how progress is logged, and how the harness's outcome becomes the exit status.
 */

/** REPO_ROOT is the checkout the harness runs from (the compiled file sits three levels down, in dist/bench/harness/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** RESULTS_DIR is where reports go unless `--out` says otherwise. */
export const RESULTS_DIR = `${REPO_ROOT}bench/results`;

export type HarnessLog = (line: string) => void;

/**
 * harnessLog writes progress lines to stderr, prefixed with the harness's name and the time of
 * day, so that stdout stays free for the tables and a test can read both apart.
 */
export function harnessLog(name: string): HarnessLog {
  return (line) => process.stderr.write(`[${name} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/**
 * runHarness runs `main` and makes its result the exit status; a thrown error is logged with its
 * stack and exits with 1. It sets `process.exitCode` rather than exiting, so the harness's own
 * clean-up (its `finally` blocks, the stopped children's exit events) still runs to the end.
 */
export function runHarness(main: () => Promise<number>, log: HarnessLog): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      log(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
}
