import { labelsKey } from '../storage/labels.js';
import type { MetricQuerier } from '../storage/metricHead.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import type { Selection } from './promqlPlan.js';

/**
 * gatherSeries fetches what a set of selections needs, once per series: when two selectors
 * reach the same series over different ranges (`x - x offset 1d`), their samples are merged by
 * timestamp rather than shipped twice.
 */
export function gatherSeries(querier: MetricQuerier, selections: readonly Selection[]): SeriesColumns[] {
  const byKey = new Map<string, SeriesColumns>();
  for (const sel of selections) {
    for (const s of querier.select(sel.matchers, sel.minMs, sel.maxMs)) {
      const key = labelsKey(s.labels);
      const seen = byKey.get(key);
      byKey.set(key, seen ? mergeSamples(seen, s) : s);
    }
  }
  return [...byKey.values()];
}

/** mergeSamples unions two sorted sample runs of one series, keeping one sample per timestamp (bit-exact). */
export function mergeSamples(a: SeriesColumns, b: SeriesColumns): SeriesColumns {
  const n = a.timestampsMs.length + b.timestampsMs.length;
  const ts = new Float64Array(n);
  const values = new Float64Array(n);
  const aw = new Uint32Array(a.values.buffer, a.values.byteOffset, a.values.length * 2);
  const bw = new Uint32Array(b.values.buffer, b.values.byteOffset, b.values.length * 2);
  const ow = new Uint32Array(values.buffer);
  let i = 0;
  let j = 0;
  let k = 0;
  const take = (words: Uint32Array, idx: number, t: number): void => {
    ts[k] = t;
    ow[2 * k] = words[2 * idx];
    ow[2 * k + 1] = words[2 * idx + 1];
    k++;
  };
  while (i < a.timestampsMs.length || j < b.timestampsMs.length) {
    const ta = i < a.timestampsMs.length ? a.timestampsMs[i] : Infinity;
    const tb = j < b.timestampsMs.length ? b.timestampsMs[j] : Infinity;
    if (ta < tb) take(aw, i++, ta);
    else if (tb < ta) take(bw, j++, tb);
    else {
      take(aw, i++, ta);
      j++;
    }
  }
  return { labels: a.labels, timestampsMs: ts.subarray(0, k), values: values.subarray(0, k) };
}
