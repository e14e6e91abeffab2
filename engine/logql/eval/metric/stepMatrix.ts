/**
 * The evaluator's working representation: every operator maps series valued at each step of
 * the query grid to new series. A series keeps one value per step with a presence flag (a
 * missing point is not NaN: NaN is a legitimate value), and label sets are interned so two
 * series compare by key.
 */
import type { StepSeries } from '../../../common/stepSeries.js';
import type { ResultLabels } from '../labelsBuilder.js';

/** Grid is the query's evaluation times: `steps` points from startMs, `stepMs` apart. */
export interface Grid {
  startMs: number;
  endMs: number;
  stepMs: number;
  steps: number;
}

/** makeGrid builds the grid of a range query (an instant query is one step). */
export function makeGrid(startMs: number, endMs: number, stepMs: number): Grid {
  const step = stepMs > 0 ? stepMs : 1;
  const steps = endMs >= startMs ? Math.floor((endMs - startMs) / step) + 1 : 0;
  return { startMs, endMs, stepMs: step, steps };
}

/** stepTime returns the time of step `i` in milliseconds. */
export function stepTime(grid: Grid, i: number): number {
  return grid.startMs + i * grid.stepMs;
}

/** StepMatrix is an instant-vector-valued expression over the grid. */
export interface StepMatrix {
  kind: 'matrix';
  series: StepSeries<ResultLabels>[];
}

/** StepScalar is a scalar expression (a number literal, or arithmetic on literals). */
export interface StepScalar {
  kind: 'scalar';
  value: number;
}

/** StepValue is what evaluating a sample expression yields. */
export type StepValue = StepMatrix | StepScalar;

/** newSeries allocates an empty series over `steps` points. */
export function newSeries(labels: ResultLabels, steps: number): StepSeries<ResultLabels> {
  return { labels, values: new Float64Array(steps), present: new Uint8Array(steps) };
}
