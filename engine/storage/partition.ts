import type { Labels } from './labels.js';

/**
 * SeriesPartition picks part `index` of `count`, with `of` placing a series' labels in a part
 * (a pure function, so a reader can remember its answer per series).
 */
export interface SeriesPartition {
  of: (labels: Labels, count: number) => number;
  index: number;
  count: number;
}
