import { labelsKey } from '../storage/labels.js';
import type { LogReader, LogStreamData } from '../storage/logHead.js';
import type { MetricQuerier } from '../storage/metricHead.js';
import type { LogSelection } from './logqlPlan.js';
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

/**
 * gatherLogStreams fetches the lines a set of log selections needs, once per stream: when two
 * selectors reach one stream over different windows, the second contributes only the lines
 * outside the first's window (inside it, both hold the same lines). Messages are left out when
 * no selection reads them.
 */
export function gatherLogStreams(reader: LogReader, selections: readonly LogSelection[]): LogStreamData[] {
  const byKey = new Map<string, { stream: LogStreamData; minNs: bigint; maxNs: bigint }>();
  // One projection for all: a stream's lines from one selection stand in for another's.
  const projection = { lines: selections.some((s) => s.lines !== false) };
  for (const sel of selections) {
    for (const s of reader.select(sel.matchers, sel.minNs, sel.maxNs, projection)) {
      const key = labelsKey(s.tags);
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, { stream: s, minNs: sel.minNs, maxNs: sel.maxNs });
        continue;
      }
      const keep: number[] = [];
      s.timestampsNs.forEach((t, i) => {
        if (t < seen.minNs || t > seen.maxNs) keep.push(i);
      });
      if (keep.length === 0) continue;
      const rows = [...seen.stream.timestampsNs.keys()].map((i) => ({ t: seen.stream.timestampsNs[i], m: seen.stream.messages[i] }));
      for (const i of keep) rows.push({ t: s.timestampsNs[i], m: s.messages[i] });
      rows.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
      seen.stream = { tags: s.tags, timestampsNs: BigInt64Array.from(rows, (r) => r.t), messages: rows.map((r) => r.m) };
      seen.minNs = seen.minNs < sel.minNs ? seen.minNs : sel.minNs;
      seen.maxNs = seen.maxNs > sel.maxNs ? seen.maxNs : sel.maxNs;
    }
  }
  return [...byKey.values()].map((v) => v.stream);
}
