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

/**
 * TimePart is one part of time, the lines stamped in [fromNs, toNs] (both included): a log
 * shard reads only its part, and the parts of a query's shards cover all time once.
 */
export interface TimePart {
  fromNs: bigint;
  toNs: bigint;
}
