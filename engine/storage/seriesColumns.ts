import type { FloatHistogram } from '../histogram/floatHistogram.js';
import type { Labels } from './labels.js';

/**
 * SeriesColumns is one series as two parallel columns: `timestampsMs[i]` (ms, ascending and
 * unique) carries `values[i]`. It is the one shape a series has wherever it is whole: read from
 * the head or a segment, moved between threads, and returned by a PromQL or LogQL range query.
 * Keeping one type means a storage read can be handed to the evaluator, packed for transfer
 * or rendered without a copy or a cast. It lives in storage because storage is the lowest
 * layer every reader (query engines, packing, the HTTP front) already depends on.
 */
export interface SeriesColumns {
  labels: Labels;
  timestampsMs: Float64Array;
  values: Float64Array;
  /**
   * histograms, when present, has one slot per sample: set where sample i is a native
   * histogram (its `values[i]` is then 0 and ignored), undefined where it is a float or a
   * staleness marker. Series without histogram samples leave the field out, so float-only
   * paths never look at it.
   */
  histograms?: readonly (FloatHistogram | undefined)[];
  /**
   * staleFree, when true, says the reader already knows no value is a staleness marker (a
   * segment checks each series once when it decodes it), so range selectors skip their
   * per-query scan for markers. Absent means unknown: the values must be checked.
   */
  staleFree?: boolean;
  /**
   * resetFree, when true, says the reader already knows no value is below the one before it
   * (found with staleFree), so rate and increase skip their scan for counter resets. It
   * describes these arrays as they are: removing markers or joining parts makes new
   * neighbours, and whoever does so drops it or works it out again.
   */
  resetFree?: boolean;
  /**
   * valueText, when present, is the text of every value as a number joined to a string prints
   * it (the JSON of a finite number), made by the worker that evaluated the series: the thread
   * that writes results then slices text instead of formatting numbers, which for answers of
   * many series was most of its time. Only finite values have text (see valueTextAt).
   */
  valueText?: ValueText;
  /**
   * sampleText, when present, is every point as the Prometheus API writes it in a matrix,
   * `[unixSeconds,"value"]` with the value in Go's form, made by the worker that evaluated the
   * series (packing.ts) for the same reason as valueText; entry i is point i's pair.
   */
  sampleText?: ByteText;
  /**
   * labelsText, when present, is the label set as the Prometheus API writes it (labelsJson: a
   * JSON object, names in order, as UTF-8), made by the worker that evaluated the series, so
   * that API's answers copy it instead of reading the labels on the thread that writes them.
   */
  labelsText?: ByteRange;
}

/** ByteRange is `bytes[from, to)`. */
export interface ByteRange {
  bytes: Uint8Array;
  from: number;
  to: number;
}

/**
 * ValueText holds a series' values (or points) as text: value i is `source.slice(at[i], at[i + 1] - 1)`,
 * each followed by a comma in `source`, so the values of points i..j-1 as a JSON list's
 * items are `source.slice(at[i], at[j] - 1)`. A value that is not finite has empty text.
 */
export interface ValueText {
  source: string;
  /** at has one more entry than the series has points. */
  at: Uint32Array;
}

/**
 * ByteText is ValueText kept as ASCII bytes: point i is `bytes[at[i] .. at[i + 1] - 1)`, each
 * followed by a comma. Bytes move between threads without a copy and go into a response body
 * as they are, where a string would be copied into each thread's heap and encoded again.
 */
export interface ByteText {
  bytes: Uint8Array;
  /** at has one more entry than the series has points. */
  at: Uint32Array;
}

/** valueTextAt is point i's text: what `'' + values[i]` gives for a finite value. */
export function valueTextAt(text: ValueText, i: number): string {
  return text.source.slice(text.at[i], text.at[i + 1] - 1);
}
