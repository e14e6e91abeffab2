/**
 * Label-set collision checks. Removing the metric name can make two series identical; PromQL
 * rejects a vector holding the same label set twice at one timestamp, and merges series that
 * collide at disjoint timestamps. These helpers enforce that on streams and result sets.
 */
import { evalError } from './context.js';
import { labelsKey } from './labelset.js';
import type { SeriesStream, VectorSeries } from './series.js';

/** DUPLICATE_LABELSET is Prometheus' error for two series with equal labels at one step. */
export const DUPLICATE_LABELSET = 'vector cannot contain metrics with the same labelset';

/**
 * distinctPerStep passes a stream through, failing if two series with the same labels both
 * have a value at some step (series meeting at different steps are allowed; the final result
 * merges them).
 */
export function* distinctPerStep(stream: SeriesStream): Generator<VectorSeries> {
  const seen = new Map<string, Uint8Array>();
  for (const series of stream) {
    const key = labelsKey(series.labels);
    const prior = seen.get(key);
    if (prior === undefined) {
      seen.set(key, series.present.slice());
    } else {
      const present = series.present;
      for (let i = 0; i < present.length; i++) {
        if (present[i] !== 0 && prior[i] !== 0) throw evalError(DUPLICATE_LABELSET);
        prior[i] |= present[i];
      }
    }
    yield series;
  }
}

/** distinctSeries passes a stream through, failing as soon as two series share a label set. */
export function* distinctSeries(stream: SeriesStream): Generator<VectorSeries> {
  const seen = new Set<string>();
  for (const series of stream) {
    const key = labelsKey(series.labels);
    if (seen.has(key)) throw evalError(DUPLICATE_LABELSET);
    seen.add(key);
    yield series;
  }
}

/**
 * mergeSameLabels folds series with equal labels into one, failing if they overlap at a step.
 * The first series of each label set keeps its position.
 */
export function mergeSameLabels(series: VectorSeries[]): VectorSeries[] {
  const slots = new Map<string, { index: number; owned: boolean }>();
  const out: VectorSeries[] = [];
  for (const s of series) {
    const key = labelsKey(s.labels);
    const slot = slots.get(key);
    if (slot === undefined) {
      slots.set(key, { index: out.length, owned: false });
      out.push(s);
      continue;
    }
    let dest = out[slot.index];
    if (!slot.owned) {
      // Copy before writing: the first series' arrays may be shared with another operator.
      dest = { labels: dest.labels, values: dest.values.slice(), present: dest.present.slice(), dropName: dest.dropName, histograms: dest.histograms?.slice() };
      out[slot.index] = dest;
      slot.owned = true;
    }
    for (let i = 0; i < s.present.length; i++) {
      if (s.present[i] === 0) continue;
      if (dest.present[i] !== 0) throw evalError(DUPLICATE_LABELSET);
      dest.present[i] = 1;
      dest.values[i] = s.values[i];
      const h = s.histograms?.[i];
      if (h !== undefined) (dest.histograms ??= new Array(s.present.length))[i] = h;
    }
  }
  return out;
}
