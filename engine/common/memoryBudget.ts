import { EngineError } from '../errors.js';

/**
 * MemoryBudget is one query's allowance of memory on one thread, in bytes, kept as a running
 * counter: what a query keeps (lines and labels of rows, series, results waiting for the
 * client) is charged as it is kept, and what it produces for a moment (a template's output)
 * is checked against what is left while it is produced. Sizes are string lengths plus small
 * fixed overheads, an estimate that costs an addition, never a serialisation.
 *
 * Past the budget the query fails with RESOURCE_EXHAUSTED, which the service answers as 400
 * before its stream starts and as a `done` with status error after.
 */
export class MemoryBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** available is what may still be kept or produced. */
  get available(): number {
    return Math.max(0, this.limitBytes - this.used);
  }

  /** charge counts `bytes` more as kept; throws when that passes the budget. */
  charge(bytes: number, what: string): void {
    this.used += bytes;
    if (this.used > this.limitBytes) throw memoryBudgetExceeded(this.limitBytes, what);
  }

  /** release returns `bytes` kept earlier. */
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** check throws when `bytes` more would not fit, without keeping them. */
  check(bytes: number, what: string): void {
    if (this.used + bytes > this.limitBytes) throw memoryBudgetExceeded(this.limitBytes, what);
  }
}

/** UNBOUNDED is the budget of callers that set none (tests, tools running one-off evaluations). */
export function unboundedBudget(): MemoryBudget {
  return new MemoryBudget(Number.POSITIVE_INFINITY);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** memoryBudgetExceeded is the error of a query that needs more memory than its budget. */
export function memoryBudgetExceeded(limitBytes: number, what: string): EngineError {
  return new EngineError(
    'RESOURCE_EXHAUSTED',
    `query exceeded its memory budget of ${formatBytes(limitBytes)} (${what}); narrow the selector or the time range, or make line_format and label_format output smaller`,
  );
}
