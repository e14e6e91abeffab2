/**
 * SeriesCollector groups the samples a metrics request produces by series, so that a request
 * carrying several points of the same series (or the many `_bucket` series of a histogram over
 * several points) yields one MetricSeries each, with typed arrays in time order. Labels are
 * kept as sorted name/value pairs until the end, when each series' label object is built once.
 */
import type { FloatHistogram } from '../histogram/floatHistogram.js';
import { labelPairKey } from '../storage/labels.js';
import type { LastSampleLookup } from '../storage/metricHead.js';
import { createdZeroFits, zeroHistogramLike } from './createdZero.js';
import { setLabel } from './labelObject.js';
import type { MetricSeries } from './types.js';

/** LabelPairs is a label set as [name, value] pairs sorted by name. */
export type LabelPairs = Array<[string, string]>;

interface SeriesBuffer {
  labels: LabelPairs;
  times: number[];
  values: number[];
  stale: number[] | null;
  /** histogram slots, once the series took a native histogram sample */
  hists: (FloatHistogram | undefined)[] | null;
  /** [sample index, created timestamp] pairs of samples that carry one, in the order added */
  created: number[] | null;
}

/**
 * CreatedZeroPolicy is how finish() places zeros at created timestamps: `lastStoredMs` gives a
 * series' newest stored sample (undefined from it: unknown, so no zero), `accepts` the time
 * bounds a zero must meet. Zeros are counted in `added` and `histograms`.
 */
export interface CreatedZeroPolicy {
  lastStoredMs: LastSampleLookup | undefined;
  accepts(timeMs: number): boolean;
  added: number;
  histograms: number;
}

/** labelPairsKey renders sorted pairs as a map key that cannot collide across label sets. */
export function labelPairsKey(pairs: LabelPairs): string {
  let key = '';
  for (let i = 0; i < pairs.length; i++) key += labelPairKey(pairs[i][0], pairs[i][1]);
  return key;
}

/** pairsToObject builds the label object of a series, in the pairs' (sorted) order. */
export function pairsToObject(pairs: LabelPairs): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i++) setLabel(out, pairs[i][0], pairs[i][1]);
  return out;
}

/** withLabel returns a copy of sorted `pairs` with (name, value) set in its sorted place. */
export function withLabel(pairs: LabelPairs, name: string, value: string): LabelPairs {
  const out: LabelPairs = [];
  let placed = false;
  for (let i = 0; i < pairs.length; i++) {
    const n = pairs[i][0];
    if (!placed && n >= name) {
      out.push([name, value]);
      placed = true;
      if (n === name) continue;
    }
    out.push(pairs[i]);
  }
  if (!placed) out.push([name, value]);
  return out;
}

/** SeriesCollector accumulates samples per series key for one request. */
export class SeriesCollector {
  private readonly series = new Map<string, SeriesBuffer>();

  /**
   * add appends one sample. `key` must identify the label set (name included); `labels` is
   * only read the first time the key is seen.
   */
  add(key: string, labels: () => LabelPairs, timeMs: number, value: number, stale: boolean, histogram?: FloatHistogram): void {
    let buf = this.series.get(key);
    if (buf === undefined) {
      buf = { labels: labels(), times: [], values: [], stale: null, hists: null, created: null };
      this.series.set(key, buf);
    }
    if (stale && buf.stale === null) buf.stale = new Array<number>(buf.times.length).fill(0);
    if (histogram !== undefined && !stale && buf.hists === null) buf.hists = new Array<FloatHistogram | undefined>(buf.times.length).fill(undefined);
    if (buf.hists !== null) buf.hists.push(stale ? undefined : histogram);
    buf.times.push(timeMs);
    buf.values.push(stale ? NaN : value);
    if (buf.stale !== null) buf.stale.push(stale ? 1 : 0);
  }

  /** created records the created (start) timestamp of the sample of `key` added last; 0 means none. */
  created(key: string, createdMs: number): void {
    const buf = this.series.get(key);
    if (buf === undefined || createdMs === 0) return;
    (buf.created ??= []).push(buf.times.length - 1, createdMs);
  }

  /**
   * finish returns every series with its samples sorted by time (stable for equal times), with
   * zeros at created timestamps when `zeros` is given.
   */
  finish(zeros?: CreatedZeroPolicy): MetricSeries[] {
    const out: MetricSeries[] = [];
    for (const buf of this.series.values()) {
      if (zeros !== undefined && buf.created !== null) addCreatedZeros(buf, zeros);
      const n = buf.times.length;
      let order: number[] | null = null;
      for (let i = 1; i < n; i++) {
        if (buf.times[i] < buf.times[i - 1]) {
          order = Array.from({ length: n }, (_, k) => k).sort((a, b) => buf.times[a] - buf.times[b] || a - b);
          break;
        }
      }
      const timestampsMs = new Float64Array(n);
      const values = new Float64Array(n);
      const stale = buf.stale === null ? undefined : new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const from = order === null ? i : order[i];
        timestampsMs[i] = buf.times[from];
        values[i] = buf.values[from];
        if (stale !== undefined) stale[i] = buf.stale![from];
      }
      const series: MetricSeries = { labels: pairsToObject(buf.labels), timestampsMs, values };
      if (stale !== undefined) series.stale = stale;
      if (buf.hists !== null) series.histograms = Array.from({ length: n }, (_, i) => buf.hists![order === null ? i : order[i]]);
      out.push(series);
    }
    return out;
  }
}

/**
 * addCreatedZeros appends a zero for each created timestamp that lies after the sample before
 * its own (in the order added, or the series' newest stored sample for the first) and before
 * its own; finish() then sorts it into place. A native histogram's zero is an empty histogram
 * in its layout.
 */
function addCreatedZeros(buf: SeriesBuffer, zeros: CreatedZeroPolicy): void {
  const created = buf.created!;
  const stored = zeros.lastStoredMs === undefined ? -Infinity : zeros.lastStoredMs(pairsToObject(buf.labels));
  if (stored === undefined) return;
  let last = NaN;
  for (let k = 0; k < created.length; k += 2) {
    const i = created[k];
    const ct = created[k + 1];
    const previous = i > 0 ? Math.max(buf.times[i - 1], stored) : stored;
    if (ct === last || !createdZeroFits(ct, previous, buf.times[i]) || !zeros.accepts(ct)) continue;
    const own = buf.hists?.[i];
    buf.times.push(ct);
    buf.values.push(0);
    buf.stale?.push(0);
    buf.hists?.push(own === undefined ? undefined : zeroHistogramLike(own));
    zeros.added++;
    if (own !== undefined) zeros.histograms++;
    last = ct;
  }
}
