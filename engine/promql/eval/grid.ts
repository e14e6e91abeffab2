/**
 * StepGrid is the set of evaluation timestamps of one (sub)query: `count` steps from `startMs`
 * every `stepMs`. An instant query is a grid of one step. Every intermediate result of the
 * evaluator is laid out on a grid, one typed-array slot per step.
 */
export interface StepGrid {
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly count: number;
}

/**
 * makeGrid builds the grid of a range query. The end is rounded down to the last step actually
 * evaluated, so derived windows (subqueries) never reach past it.
 */
export function makeGrid(startMs: number, endMs: number, stepMs: number): StepGrid {
  if (stepMs <= 0 || endMs <= startMs) return { startMs, endMs: startMs, stepMs: stepMs > 0 ? stepMs : 1, count: 1 };
  const count = Math.floor((endMs - startMs) / stepMs) + 1;
  return { startMs, endMs: startMs + (count - 1) * stepMs, stepMs, count };
}

/** instantGrid is the one-step grid at `timeMs`. */
export function instantGrid(timeMs: number): StepGrid {
  return { startMs: timeMs, endMs: timeMs, stepMs: 1, count: 1 };
}

/** stepTime is the timestamp of step `i`. */
export function stepTime(grid: StepGrid, i: number): number {
  return grid.startMs + i * grid.stepMs;
}

/** isRangeGrid tells whether the grid spans more than one instant (start and end differ). */
export function isRangeGrid(grid: StepGrid): boolean {
  return grid.endMs !== grid.startMs;
}

/** stepTimes lists a grid's step timestamps. */
export function stepTimes(grid: StepGrid): Float64Array {
  const out = new Float64Array(grid.count);
  for (let i = 0; i < grid.count; i++) out[i] = stepTime(grid, i);
  return out;
}
