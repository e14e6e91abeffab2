/**
 * How a range query's steps split between the results cache and evaluation. Steps are the
 * times start + k·step; the cache keeps them in cells of `splitMs` aligned to the Unix epoch
 * (cell c holds the steps in [c·split, (c+1)·split); times are whole milliseconds), one piece
 * per cell holding a contiguous run of that cell's steps. Steps outside [firstCacheableMs,
 * lastCacheableMs] (too fresh, or reading data the org's retention is about to clip) are always
 * evaluated.
 */

/** PlannedPiece is one run of a query's steps, in time order: from the cache, or to evaluate. */
export type PlannedPiece =
  | { kind: 'cached'; fromMs: number; toMs: number; cell: number }
  | { kind: 'evaluate'; fromMs: number; toMs: number };

export interface PiecePlanInput {
  /** firstStepMs and lastStepMs are the query's first and last step times. */
  firstStepMs: number;
  lastStepMs: number;
  stepMs: number;
  splitMs: number;
  firstCacheableMs: number;
  lastCacheableMs: number;
  /** cached gives the steps the cell's piece holds, if the cache has one. */
  cached(cell: number): { fromMs: number; toMs: number } | undefined;
}

/** StepGrid aligns times to a query's steps: start + k·step for whole k. */
export class StepGrid {
  constructor(
    private readonly originMs: number,
    private readonly stepMs: number,
  ) {}

  /** up is the first step time at or after `t`. */
  up(t: number): number {
    return this.originMs + Math.ceil((t - this.originMs) / this.stepMs) * this.stepMs;
  }

  /** down is the last step time at or before `t`. */
  down(t: number): number {
    return this.originMs + Math.floor((t - this.originMs) / this.stepMs) * this.stepMs;
  }
}

/**
 * planPieces lists the query's steps as cached and evaluated runs in time order; adjacent runs
 * to evaluate are merged, so each is one evaluation over consecutive steps.
 */
export function planPieces(input: PiecePlanInput): PlannedPiece[] {
  const { firstStepMs, lastStepMs, stepMs, splitMs } = input;
  const grid = new StepGrid(firstStepMs, stepMs);
  const out: PlannedPiece[] = [];
  const evaluate = (fromMs: number, toMs: number): void => {
    if (toMs < fromMs) return;
    const last = out[out.length - 1];
    if (last?.kind === 'evaluate' && last.toMs + stepMs === fromMs) last.toMs = toMs;
    else out.push({ kind: 'evaluate', fromMs, toMs });
  };
  const lo = Math.max(firstStepMs, grid.up(input.firstCacheableMs));
  const hi = Math.min(lastStepMs, grid.down(input.lastCacheableMs));
  if (lo > hi) {
    evaluate(firstStepMs, lastStepMs);
    return out;
  }
  evaluate(firstStepMs, lo - stepMs);
  for (let cell = Math.floor(lo / splitMs); cell <= Math.floor(hi / splitMs); cell++) {
    const a = Math.max(lo, grid.up(cell * splitMs));
    const b = Math.min(hi, grid.down((cell + 1) * splitMs - 1));
    if (a > b) continue;
    const held = input.cached(cell);
    const from = held === undefined ? Infinity : Math.max(a, held.fromMs);
    const to = held === undefined ? -Infinity : Math.min(b, held.toMs);
    if (from > to) {
      evaluate(a, b);
      continue;
    }
    evaluate(a, from - stepMs);
    out.push({ kind: 'cached', fromMs: from, toMs: to, cell });
    evaluate(to + stepMs, b);
  }
  evaluate(hi + stepMs, lastStepMs);
  return out;
}

/** cellsOf lists the cells a run of steps from `fromMs` to `toMs` touches, with the run's part in each. */
export function cellsOf(fromMs: number, toMs: number, stepMs: number, splitMs: number): Array<{ cell: number; fromMs: number; toMs: number }> {
  const grid = new StepGrid(fromMs, stepMs);
  const out: Array<{ cell: number; fromMs: number; toMs: number }> = [];
  for (let cell = Math.floor(fromMs / splitMs); cell <= Math.floor(toMs / splitMs); cell++) {
    const a = Math.max(fromMs, grid.up(cell * splitMs));
    const b = Math.min(toMs, grid.down((cell + 1) * splitMs - 1));
    if (a <= b) out.push({ cell, fromMs: a, toMs: b });
  }
  return out;
}
