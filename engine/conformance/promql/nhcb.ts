/**
 * `load_with_nhcb`: classic histogram series (`x_bucket{le=..}`, `x_count`, `x_sum`) are also
 * loaded as one native histogram series with custom buckets (`x`), one sample per timestamp
 * at which any of them has a value, as Prometheus' test loader converts them.
 */
import { CUSTOM_BUCKETS_SCHEMA, compact, CounterResetHint, type FloatHistogram } from '../../histogram/floatHistogram.js';
import type { MixedSeries } from '../../histogram/histogramQuerier.js';
import { storedHints } from '../../histogram/storedHints.js';
import { bucketBound } from '../../promql/eval/classicHistogram.js';
import { labelsKey, type Labels } from '../../storage/labels.js';
import type { SequenceValue } from './seriesDescription.js';

/** Classic is one timestamp's classic histogram parts. */
interface Classic {
  buckets: { le: number; count: number }[];
  count: number | null;
  sum: number;
}

/** toNative converts one classic histogram, or null when it is not a valid cumulative histogram. */
function toNative(c: Classic): FloatHistogram | null {
  const buckets = [...c.buckets].sort((a, b) => a.le - b.le);
  for (let i = 1; i < buckets.length; i++) if (buckets[i].count < buckets[i - 1].count) return null;
  if (buckets.some((b) => b.count < 0 || Number.isNaN(b.le))) return null;
  let count = c.count;
  if (count === null && buckets.length > 0) count = buckets[buckets.length - 1].count;
  count ??= 0;
  if (buckets.length === 0 || buckets[buckets.length - 1].le !== Infinity) buckets.push({ le: Infinity, count });
  if (count !== buckets[buckets.length - 1].count) return null;
  const counts = new Float64Array(buckets.length);
  let prev = 0;
  buckets.forEach((b, i) => {
    counts[i] = b.count - prev;
    prev = b.count;
  });
  return compact({
    schema: CUSTOM_BUCKETS_SCHEMA,
    zeroThreshold: 0,
    zeroCount: 0,
    count,
    sum: c.sum,
    posIndex: Int32Array.from(buckets, (_, i) => i),
    posCount: counts,
    negIndex: new Int32Array(0),
    negCount: new Float64Array(0),
    customValues: Float64Array.from(buckets.slice(0, -1), (b) => b.le),
    counterResetHint: CounterResetHint.Unknown,
  });
}

/**
 * classicToNhcb converts the classic histogram series among `series`; `nativeLabelsOf` names
 * the native series a classic one belongs to (null for series that are not part of one).
 */
export function classicToNhcb(
  series: readonly { labels: Labels; values: readonly SequenceValue[] }[],
  intervalMs: number,
  nativeLabelsOf: (labels: Labels) => Labels | null,
): MixedSeries[] {
  const byNative = new Map<string, { labels: Labels; at: Map<number, Classic> }>();
  for (const s of series) {
    const native = nativeLabelsOf(s.labels);
    if (native === null) continue;
    const key = labelsKey(native);
    let entry = byNative.get(key);
    if (entry === undefined) {
      entry = { labels: native, at: new Map() };
      byNative.set(key, entry);
    }
    const name = s.labels.__name__ ?? '';
    s.values.forEach((v, i) => {
      if (v.kind !== 'float') return;
      const t = i * intervalMs;
      let c = entry.at.get(t);
      if (c === undefined) {
        c = { buckets: [], count: null, sum: 0 };
        entry.at.set(t, c);
      }
      if (name.endsWith('_bucket')) {
        const le = bucketBound(s.labels.le ?? '');
        if (le !== null && !c.buckets.some((b) => b.le === le)) c.buckets.push({ le, count: v.value });
      } else if (name.endsWith('_count')) c.count = v.value;
      else c.sum = v.value;
    });
  }
  const out: MixedSeries[] = [];
  for (const { labels, at } of byNative.values()) {
    const times = [...at.keys()].sort((a, b) => a - b);
    const ts: number[] = [];
    const histograms: FloatHistogram[] = [];
    for (const t of times) {
      const h = toNative(at.get(t)!);
      if (h === null) continue;
      ts.push(t);
      histograms.push(h);
    }
    if (ts.length > 0) out.push({ labels, timestampsMs: Float64Array.from(ts), values: new Float64Array(ts.length), histograms: storedHints(histograms) });
  }
  return out;
}
