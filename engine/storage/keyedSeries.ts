import { inNameOrder, labelsFromKey, labelsKey, type Labels } from './labels.js';
import type { ByteRange, ByteText, SeriesColumns, ValueText } from './seriesColumns.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';

/**
 * KeyedSeries is a series as a worker's answer delivers it: identified by its label-set key
 * (labelsKey of its labels, names in order), its labels read back from the key only when
 * something asks for them. The thread that answers every query handles whole answers of
 * thousands of series by key alone (merging shards, sorting, finding each series' rendered
 * events, joining slices); making every label set an object there cost more than the rest of
 * that work together, mostly in garbage collection, since an answer's objects all live until
 * it is written.
 *
 * Code that copies a series must not spread it (`{ ...s }` copies own fields, and `labels` is
 * read through the prototype): withColumns keeps the key and the labels.
 */
export class KeyedSeries implements SeriesColumns {
  #labels: Labels | undefined;
  histograms?: readonly (FloatHistogram | undefined)[] = undefined;
  valueText?: ValueText = undefined;
  sampleText?: ByteText = undefined;
  labelsText?: ByteRange = undefined;

  constructor(
    readonly key: string,
    readonly timestampsMs: Float64Array,
    readonly values: Float64Array,
    labels?: Labels,
  ) {
    this.#labels = labels;
  }

  get labels(): Labels {
    return (this.#labels ??= labelsFromKey(this.key));
  }

  /** labelsIfRead is the labels object when it has been made, so a copy shares it instead of reading the key again. */
  labelsIfRead(): Labels | undefined {
    return this.#labels;
  }
}

/**
 * seriesKeyOf is a series' identity and order: its key when it carries one, else the key of its
 * labels with the names in order. Comparing keys as strings orders label sets as
 * compareLabels (Prometheus' labels.Compare) does: the separators sort below every character
 * of a name or value, and escaped characters keep their order (see labelPairKey).
 */
export function seriesKeyOf(s: SeriesColumns): string {
  return s instanceof KeyedSeries ? s.key : labelSetKey(s.labels);
}

/** labelSetKey is the key of a label set, whatever order its names come in: a series with these labels has it (seriesKeyOf). */
export function labelSetKey(labels: Labels): string {
  return labelsKey(inNameOrder(labels));
}

/**
 * sortSeriesByKey sorts series in place by their label sets (seriesKeyOf), each key taken once.
 * Workers' series are compared by the keys they carry; shards' answers come sorted each, which
 * the sort's run detection merges in one pass.
 */
export function sortSeriesByKey<T extends SeriesColumns>(series: T[]): T[] {
  if (series.every((s) => s instanceof KeyedSeries)) return series.sort((a, b) => compareKeys((a as unknown as KeyedSeries).key, (b as unknown as KeyedSeries).key));
  const keyed = series.map((s) => ({ s, key: seriesKeyOf(s) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  for (let i = 0; i < series.length; i++) series[i] = keyed[i].s;
  return series;
}

/**
 * withColumns is `s` with other points: the same key and labels (read or not), the given
 * columns, and no text of the old points or labels (what a copy keeps must not hold a
 * worker's whole answer alive).
 */
export function withColumns(s: SeriesColumns, timestampsMs: Float64Array, values: Float64Array, histograms?: readonly (FloatHistogram | undefined)[]): SeriesColumns {
  if (s instanceof KeyedSeries) {
    const out = new KeyedSeries(s.key, timestampsMs, values, s.labelsIfRead());
    if (histograms !== undefined) out.histograms = histograms;
    return out;
  }
  return histograms === undefined ? { labels: s.labels, timestampsMs, values } : { labels: s.labels, timestampsMs, values, histograms };
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
