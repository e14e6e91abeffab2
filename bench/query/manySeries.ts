import type { Labels } from '../../engine/storage/labels.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';

/** The shape of a dashboard's heaviest answer: 1,000 series over an hour at a 15 s step. */
export const SERIES = 1_000;
export const POINTS = 241;

/**
 * manySeriesAnswer builds an answer of `SERIES` series of `POINTS` steps each, 15 s apart: the
 * value of series i at step p is `value(i, p)`, its labels `labels(i)`. Every call makes fresh
 * arrays and label objects, as each worker answer brings.
 */
export function manySeriesAnswer(value: (series: number, step: number) => number, labels: (series: number) => Labels): SeriesColumns[] {
  return Array.from({ length: SERIES }, (_, i) => {
    const timestampsMs = new Float64Array(POINTS);
    const values = new Float64Array(POINTS);
    for (let p = 0; p < POINTS; p++) {
      timestampsMs[p] = 1_700_000_000_000 + p * 15_000;
      values[p] = value(i, p);
    }
    return { labels: labels(i), timestampsMs, values };
  });
}
