import { inNameOrder, labelsFromKey, labelsKey, type Labels } from './labels.js';
import type { ByteRange, ByteText, SeriesColumns, ValueText } from './seriesColumns.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';

/**
 * AnswerColumns are the columns a KeyedSeries' points lie in: a worker's packed answer, every
 * series' points one after another (with the text of each point and each label set, when the
 * worker sent them), or one series' own arrays.
 */
export interface AnswerColumns {
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
  readonly valueText?: string;
  readonly valueTextAt?: Uint32Array;
  readonly sampleText?: Uint8Array;
  readonly sampleTextAt?: Uint32Array;
  readonly labelsText?: Uint8Array;
  readonly labelsTextAt?: Uint32Array;
}

/** UNREAD marks a view a KeyedSeries has not made yet (undefined is a view's value: no text). */
const UNREAD = Symbol('unread');

/**
 * KeyedSeries is a series as a worker's answer delivers it: identified by its label-set key
 * (labelsKey of its labels, names in order), its labels read back from the key only when
 * something asks for them. The thread that answers every query handles whole answers of
 * thousands of series by key alone (merging shards, sorting, finding each series' rendered
 * events, joining slices); making every label set an object there cost more than the rest of
 * that work together, mostly in garbage collection, since an answer's objects all live until
 * it is written.
 *
 * For the same reason its points stay in the answer's columns (`columns`, points `from` to
 * `to`) and its per-series views (timestampsMs, values and the text views) are made only when
 * read: encoders read the columns in place (pointColumnsOf), and an instant answer of 10,000
 * series made some 30,000 views there that lived until it was written.
 *
 * Code that copies a series must not spread it (`{ ...s }` copies own fields, and the columns
 * and labels are read through the prototype): withColumns keeps the key and the labels.
 */
export class KeyedSeries implements SeriesColumns {
  #labels: Labels | undefined;
  #timestampsMs: Float64Array | undefined;
  #values: Float64Array | undefined;
  #valueText: ValueText | undefined | typeof UNREAD = UNREAD;
  #sampleText: ByteText | undefined | typeof UNREAD = UNREAD;
  #labelsText: ByteRange | undefined | typeof UNREAD = UNREAD;
  #textReplaced = false;
  histograms?: readonly (FloatHistogram | undefined)[] = undefined;
  readonly columns: AnswerColumns;
  /** from and to bound the series' points in `columns`; index is its place in the answer (its label text's), -1 for a series of its own arrays. */
  readonly from: number;
  readonly to: number;
  readonly index: number;

  /**
   * A series of its own arrays; with `columns`, the series at `index` of an answer, whose
   * points are `from` to `to` of the columns (`timestampsMs` and `values` are then ignored).
   */
  constructor(
    readonly key: string,
    timestampsMs: Float64Array,
    values: Float64Array,
    labels?: Labels,
    columns?: AnswerColumns,
    index = -1,
    from = 0,
    to = timestampsMs.length,
  ) {
    this.#labels = labels;
    if (columns === undefined) {
      this.columns = { timestampsMs, values };
      this.#timestampsMs = timestampsMs;
      this.#values = values;
    } else {
      this.columns = columns;
    }
    this.index = index;
    this.from = from;
    this.to = to;
  }

  get labels(): Labels {
    return (this.#labels ??= labelsFromKey(this.key));
  }

  get timestampsMs(): Float64Array {
    return (this.#timestampsMs ??= this.columns.timestampsMs.subarray(this.from, this.to));
  }

  get values(): Float64Array {
    return (this.#values ??= this.columns.values.subarray(this.from, this.to));
  }

  get valueText(): ValueText | undefined {
    if (this.#valueText === UNREAD) {
      const { valueText, valueTextAt } = this.columns;
      this.#valueText = valueText === undefined ? undefined : { source: valueText, at: valueTextAt!.subarray(this.from, this.to + 1) };
    }
    return this.#valueText;
  }

  set valueText(text: ValueText | undefined) {
    this.#valueText = text;
    this.#textReplaced = true;
  }

  get sampleText(): ByteText | undefined {
    if (this.#sampleText === UNREAD) {
      const { sampleText, sampleTextAt } = this.columns;
      this.#sampleText = sampleText === undefined ? undefined : { bytes: sampleText, at: sampleTextAt!.subarray(this.from, this.to + 1) };
    }
    return this.#sampleText;
  }

  set sampleText(text: ByteText | undefined) {
    this.#sampleText = text;
    this.#textReplaced = true;
  }

  get labelsText(): ByteRange | undefined {
    if (this.#labelsText === UNREAD) {
      const { labelsText, labelsTextAt } = this.columns;
      this.#labelsText = labelsText === undefined || this.index < 0 ? undefined : { bytes: labelsText, from: labelsTextAt![this.index], to: labelsTextAt![this.index + 1] };
    }
    return this.#labelsText;
  }

  set labelsText(text: ByteRange | undefined) {
    this.#labelsText = text;
    this.#textReplaced = true;
  }

  /** labelsIfRead is the labels object when it has been made, so a copy shares it instead of reading the key again. */
  labelsIfRead(): Labels | undefined {
    return this.#labels;
  }

  /** textIsTheAnswers tells whether the series' texts, if any, are still its answer's (none replaced), so they can be read in `columns`. */
  textIsTheAnswers(): boolean {
    return !this.#textReplaced;
  }
}

/**
 * PointColumns says where a series' points are without making views: points `from` to `to`
 * of `timestampsMs` and `values`; for the same positions p, point p's value text, when there
 * is any, is `text.slice(textAt[p], textAt[p + 1] - 1)` and its Prometheus API pair
 * `sampleText[sampleTextAt[p], sampleTextAt[p + 1] - 1)`. The label set's JSON, when there is
 * any, is `labelsText[labelsFrom, labelsTo)`. Histograms are not here (a series' own, indexed
 * from 0).
 */
export interface PointColumns {
  timestampsMs: Float64Array;
  values: Float64Array;
  from: number;
  to: number;
  text: string | undefined;
  textAt: Uint32Array | undefined;
  sampleText: Uint8Array | undefined;
  sampleTextAt: Uint32Array | undefined;
  labelsText: Uint8Array | undefined;
  labelsFrom: number;
  labelsTo: number;
}

/**
 * pointColumnsOf fills `out` with where `s`'s points are (PointColumns): in its answer's
 * columns for a KeyedSeries whose texts were not replaced, else its own arrays. `out` is the
 * caller's, filled again for each series, so reading many series allocates nothing.
 */
export function pointColumnsOf(s: SeriesColumns, out: PointColumns): PointColumns {
  if (s instanceof KeyedSeries && s.textIsTheAnswers()) {
    const c = s.columns;
    out.timestampsMs = c.timestampsMs;
    out.values = c.values;
    out.from = s.from;
    out.to = s.to;
    out.text = c.valueText;
    out.textAt = c.valueTextAt;
    out.sampleText = c.sampleText;
    out.sampleTextAt = c.sampleTextAt;
    const labelsAt = c.labelsTextAt;
    const labels = labelsAt === undefined || s.index < 0 ? undefined : c.labelsText;
    out.labelsText = labels;
    out.labelsFrom = labels === undefined ? 0 : labelsAt![s.index];
    out.labelsTo = labels === undefined ? 0 : labelsAt![s.index + 1];
    return out;
  }
  out.timestampsMs = s.timestampsMs;
  out.values = s.values;
  out.from = 0;
  out.to = s.timestampsMs.length;
  out.text = s.valueText?.source;
  out.textAt = s.valueText?.at;
  out.sampleText = s.sampleText?.bytes;
  out.sampleTextAt = s.sampleText?.at;
  const labels = s.labelsText;
  out.labelsText = labels?.bytes;
  out.labelsFrom = labels?.from ?? 0;
  out.labelsTo = labels?.to ?? 0;
  return out;
}

/** pointCountOf is how many points a series has, without making its views. */
export function pointCountOf(s: SeriesColumns): number {
  return s instanceof KeyedSeries ? s.to - s.from : s.timestampsMs.length;
}

/** emptyPointColumns is a PointColumns to fill with pointColumnsOf. */
export function emptyPointColumns(): PointColumns {
  return { timestampsMs: EMPTY, values: EMPTY, from: 0, to: 0, text: undefined, textAt: undefined, sampleText: undefined, sampleTextAt: undefined, labelsText: undefined, labelsFrom: 0, labelsTo: 0 };
}

const EMPTY = new Float64Array(0);

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
