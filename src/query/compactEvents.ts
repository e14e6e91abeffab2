import { emptyPointColumns, labelsKey, pointColumnsOf, seriesKeyOf, valueTextAt, type Labels, type RawRow, type SeriesColumns } from '../../engine/index.js';
import { FrameBytesBatcher } from '../http/frameBytes.js';
import { FrameBatcher, PIECE_BYTES, type FramedEvents } from '../http/sse.js';
import { histogramJson, sharedRendering, type RenderedSeries } from './events.js';

/**
 * ResultFormat is how a query's results are written: `events`, the spec's shape (one `result`
 * event per point or row, the default), or `compact`, which a client asks for with the query
 * body's `format` field: each series' tags and label once in a `series` event, then its points
 * as columns in `points` events (raw logs: `stream` events, then `rows` events). Terminal,
 * heartbeat and summary events are the same in both. `compact-float64` (`columns: "float64"`)
 * writes a points event's values as base64 of little-endian doubles instead of JSON numbers,
 * and its timestamps the same way or, when they are a regular grid, as `start` and `step`: no
 * number is formatted as text or parsed back, and every value arrives bit for bit; raw log
 * rows are written as in `compact`.
 */
export type ResultFormat = 'events' | 'compact' | 'compact-float64';

/** writesValueText tells whether a format writes values as text, so its plan asks the workers for their values' text. */
export function writesValueText(format: ResultFormat): boolean {
  return format !== 'compact-float64';
}

/**
 * COLUMN_CHARS bounds the text of one columns event, so a long series or a big slice of rows is
 * cut into events of about a stream piece and a client can parse each as it arrives.
 */
const COLUMN_CHARS = PIECE_BYTES;

const NS_PER_MS = 1_000_000n;

/**
 * CompactSeriesEncoder writes series results in the compact format. A series' tags and label
 * come from the renderings shared across queries (sharedRendering), as the default events'
 * do, and numbers are formatted exactly as the default events format them (a number joined to
 * a string prints as JSON prints a finite number; NaN and infinities are dropped). Ids are
 * given in order of first appearance, kept by series key, and are stable for the whole query.
 */
export class CompactSeriesEncoder {
  private readonly ids = new Map<string, number>();
  /** met is the rendering of the series idOf numbered last, when that was its first appearance. */
  private met: RenderedSeries | undefined;
  private bytesView: Uint8Array | undefined;

  /** `float64` writes points events' numbers as base64 doubles (ResultFormat `compact-float64`). */
  /** `batchBytes` is how much text a batch of float64 events holds (the stream's batchBytes; a piece by default). */
  constructor(
    private readonly float64 = false,
    private readonly batchBytes?: number,
  ) {}

  /**
   * frames turns a slice's series into, per series with any finite point, its `series` event
   * (the first time the query meets it) and `points` events holding its timestamps and values
   * in time order. Slices come in time order, so each series' columns stay in time order
   * across the stream. Values come as the worker's text where it sent it.
   */
  *frames(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    if (this.float64) {
      yield* this.float64Frames(series);
      return;
    }
    const out = new FrameBatcher();
    // Series of one slice mostly share their steps: a timestamp's text is kept by its position
    // and reused while the next series has the same timestamp there (number-to-text is the
    // costly part of a point).
    const stepMs: number[] = [];
    const stepText: string[] = [];
    const shared = new SharedTimestamps(jsonNumbers);
    for (const s of series) {
      const whole = wholeColumns(s, shared);
      if (whole !== undefined) {
        const id = this.idOf(s);
        const first = this.met === undefined ? undefined : out.add(seriesEvent(id, this.met));
        if (first) yield first;
        const full = out.add(pointsEvent(id, whole.times, whole.values, false));
        if (full) yield full;
        continue;
      }
      const ts = s.timestampsMs;
      const vs = s.values;
      const hs = s.histograms;
      let id = -1;
      let times = '';
      let values = '';
      // inHistograms: the open columns hold histograms (a `histograms` column) rather than values.
      let inHistograms = false;
      for (let p = 0; p < ts.length; p++) {
        const h = hs?.[p];
        const value = vs[p];
        if (h === undefined && !Number.isFinite(value)) continue;
        if (id < 0) {
          id = this.idOf(s);
          const full = this.met === undefined ? undefined : out.add(seriesEvent(id, this.met));
          if (full) yield full;
        }
        if (times !== '' && inHistograms !== (h !== undefined)) {
          // A series switching between floats and histograms starts a new points event.
          const full = out.add(pointsEvent(id, times, values, inHistograms));
          times = '';
          values = '';
          if (full) yield full;
        }
        inHistograms = h !== undefined;
        const cell = h !== undefined ? histogramJson(h) : s.valueText !== undefined ? valueTextAt(s.valueText, p) : '' + value;
        const t = ts[p];
        let text: string;
        if (stepMs[p] === t) text = stepText[p];
        else {
          stepMs[p] = t;
          text = stepText[p] = '' + t;
        }
        if (times === '') {
          times = text;
          values = cell;
        } else {
          times += ',' + text;
          values += ',' + cell;
        }
        if (times.length + values.length >= COLUMN_CHARS) {
          const full = out.add(pointsEvent(id, times, values, inHistograms));
          times = '';
          values = '';
          if (full) yield full;
        }
      }
      const full = times === '' ? undefined : out.add(pointsEvent(id, times, values, inHistograms));
      if (full) yield full;
    }
    const rest = out.take();
    if (rest) yield rest;
  }

  /**
   * float64Frames is `frames` with base64 columns, written straight into bytes: every part of
   * these events but a series' tags and label is ASCII the encoder makes itself, and an answer
   * of many one-point series (an instant query over every series of a metric) made two small
   * strings per series that the stream then had to join and encode again. A series whose
   * points are all finite floats is written from the worker's arrays as they are (one event,
   * or several of at most FLOAT64_POINTS_PER_EVENT points); otherwise its finite floats and
   * its histogram samples are gathered in runs of one kind, as the JSON columns are.
   */
  private *float64Frames(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    const out = new FrameBytesBatcher(this.batchBytes);
    const shared = new SharedTimestamps(float64Times);
    const where = emptyPointColumns();
    for (const s of series) {
      const hs = s.histograms;
      let id = -1;
      if (hs === undefined) {
        // Read where the points lie (a worker's answer's columns): no per-series views.
        const { timestampsMs, values, from, to } = pointColumnsOf(s, where);
        if (allFinite(values, from, to)) {
          if (to === from) continue;
          id = this.idOf(s);
          const first = this.met === undefined ? undefined : seriesEventBytes(out, id, this.met);
          if (first) yield first;
          const bytes = this.bytesOf(values);
          for (let at = from; at < to; at += FLOAT64_POINTS_PER_EVENT) {
            const end = Math.min(to, at + FLOAT64_POINTS_PER_EVENT);
            const times = at === from && end === to ? shared.of(timestampsMs, from, to) : float64Times(timestampsMs.subarray(at, end));
            const full = float64PointsEventBytes(out, id, times, bytes, values.byteOffset + at * 8, values.byteOffset + end * 8);
            if (full) yield full;
          }
          continue;
        }
      }
      const ts = s.timestampsMs;
      const vs = s.values;
      // Point by point: runs of finite floats or of histograms, each at most an event long.
      const runTimes = new Float64Array(Math.min(ts.length, FLOAT64_POINTS_PER_EVENT));
      const runValues = new Float64Array(runTimes.length);
      const runHistograms: string[] = [];
      let count = 0;
      let inHistograms = false;
      const flush = (): FramedEvents | undefined => {
        if (count === 0) return undefined;
        const times = float64Times(runTimes.subarray(0, count));
        const full = inHistograms ? histogramsEventBytes(out, id, times, runHistograms) : float64PointsEventBytes(out, id, times, new Uint8Array(runValues.buffer), 0, count * 8);
        count = 0;
        runHistograms.length = 0;
        return full;
      };
      for (let p = 0; p < ts.length; p++) {
        const h = hs?.[p];
        if (h === undefined && !Number.isFinite(vs[p])) continue;
        if (id < 0) {
          id = this.idOf(s);
          const first = this.met === undefined ? undefined : seriesEventBytes(out, id, this.met);
          if (first) yield first;
        }
        if (count > 0 && (inHistograms !== (h !== undefined) || count === runTimes.length)) {
          const full = flush();
          if (full) yield full;
        }
        inHistograms = h !== undefined;
        runTimes[count] = ts[p];
        if (h !== undefined) runHistograms.push(histogramJson(h));
        else runValues[count] = vs[p];
        count++;
      }
      const full = flush();
      if (full) yield full;
    }
    const rest = out.take();
    if (rest) yield rest;
  }

  /** bytesOf is a byte view of the whole buffer under `values`, kept while series come from the same answer. */
  private bytesOf(values: Float64Array): Uint8Array {
    const known = this.bytesView;
    if (known !== undefined && known.buffer === values.buffer) return known;
    return (this.bytesView = new Uint8Array(values.buffer));
  }

  /**
   * idOf returns the series' id, given in order of first appearance; when the query meets the
   * series for the first time `met` is its rendering (for its `series` event), else undefined.
   * Ids are kept by the series' key: a series is rendered (or its shared rendering looked up)
   * once per query, and a key already numbered costs one lookup.
   */
  private idOf(s: SeriesColumns): number {
    const key = seriesKeyOf(s);
    const known = this.ids.get(key);
    if (known !== undefined) {
      this.met = undefined;
      return known;
    }
    const id = this.ids.size;
    this.ids.set(key, id);
    this.met = sharedRendering(s);
    return id;
  }
}

/**
 * SharedTimestamps keeps the text of the last timestamps column written whole: the series of a
 * slice mostly have the same steps, so the next one usually reuses it after a comparison of
 * numbers instead of writing every timestamp again. `write` is how a column becomes text (JSON
 * numbers, or base64 doubles).
 */
class SharedTimestamps {
  private timestampsMs: Float64Array | undefined;
  private text = '';

  constructor(private readonly write: (ts: Float64Array) => string) {}

  /** of is the text of `ts[from, to)` (all of it by default). */
  of(ts: Float64Array, from = 0, to = ts.length): string {
    const last = this.timestampsMs;
    if (last !== undefined && last.length === to - from) {
      let same = true;
      for (let i = 0; i < last.length && same; i++) same = ts[from + i] === last[i];
      if (same) return this.text;
    }
    const column = from === 0 && to === ts.length ? ts : ts.subarray(from, to);
    this.timestampsMs = column;
    this.text = this.write(column);
    return this.text;
  }
}

/** jsonNumbers joins a column as JSON numbers, as a number joined to a string prints. */
function jsonNumbers(ts: Float64Array): string {
  let text = '';
  for (let i = 0; i < ts.length; i++) text += i === 0 ? '' + ts[i] : ',' + ts[i];
  return text;
}

/**
 * FLOAT64_POINTS_PER_EVENT bounds a base64 points event near COLUMN_CHARS: a point is 16 bytes
 * of doubles, 21⅓ characters of base64.
 */
const FLOAT64_POINTS_PER_EVENT = Math.floor((COLUMN_CHARS * 3) / 4 / 16);

function allFinite(values: Float64Array, from = 0, to = values.length): boolean {
  for (let i = from; i < to; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

/** float64Base64 is the bytes of `column` (little-endian doubles, as every platform Node runs on stores them) in base64. */
function float64Base64(column: Float64Array): string {
  return Buffer.from(column.buffer, column.byteOffset, column.byteLength).toString('base64');
}

/**
 * float64Times writes a points event's times in the float64 format: `"start":t,"step":s` when
 * they are a regular grid of at least two points (point i at t + i·s exactly, as a range query
 * without gaps answers), else a base64 `timestamps` column. The grid saves the client decoding
 * (and the stream carrying) the same column for every series: on a 1,000-series answer 2.6 MB
 * of its 5.4.
 */
function float64Times(ts: Float64Array): string {
  const n = ts.length;
  if (n >= 2) {
    const start = ts[0];
    const step = ts[1] - start;
    let regular = true;
    for (let i = 2; i < n && regular; i++) regular = ts[i] === start + i * step;
    if (regular) return `"start":${start},"step":${step}`;
  }
  return `"timestamps":"${float64Base64(ts)}"`;
}

/** seriesEvent is a series' `series` event, naming its id. */
function seriesEvent(id: number, rendered: RenderedSeries): string {
  return SERIES_EVENT_HEAD + id + rendered.seriesTail;
}

const SERIES_EVENT_HEAD = 'data: {"type":"series","data":{"id":';
const SERIES_EVENT_HEAD_BYTES = Buffer.from(SERIES_EVENT_HEAD, 'latin1');
const POINTS_EVENT_HEAD_BYTES = Buffer.from('data: {"type":"points","data":{"id":', 'latin1');
const VALUES_OPEN_BYTES = Buffer.from(',"values":"', 'latin1');
const VALUES_CLOSE_BYTES = Buffer.from('"}}\n\n', 'latin1');
/** ID_CHARS is the longest id's text (ids are counts, far below 2^53). */
const ID_CHARS = 16;

/** seriesEventBytes writes a series' `series` event into `out`; it returns the batch once full. */
function seriesEventBytes(out: FrameBytesBatcher, id: number, rendered: RenderedSeries): FramedEvents | undefined {
  const idText = '' + id;
  out.room(SERIES_EVENT_HEAD_BYTES.length + ID_CHARS + rendered.seriesTailBytes.length);
  out.put(SERIES_EVENT_HEAD_BYTES);
  out.putAscii(idText, 0, idText.length);
  out.put(rendered.seriesTailBytes);
  return out.ended();
}

/**
 * float64PointsEventBytes writes one points event with its times (float64Times) and as values
 * the doubles in bytes `from` to `to` of `bytes`, in base64; it returns the batch once full.
 */
function float64PointsEventBytes(out: FrameBytesBatcher, id: number, times: string, bytes: Uint8Array, from: number, to: number): FramedEvents | undefined {
  const idText = '' + id;
  out.room(POINTS_EVENT_HEAD_BYTES.length + ID_CHARS + 1 + times.length + VALUES_OPEN_BYTES.length + base64Length(to - from) + VALUES_CLOSE_BYTES.length);
  out.put(POINTS_EVENT_HEAD_BYTES);
  out.putAscii(idText, 0, idText.length);
  out.putAscii(',', 0, 1);
  out.putAscii(times, 0, times.length);
  out.put(VALUES_OPEN_BYTES);
  out.putBase64(bytes, from, to);
  out.put(VALUES_CLOSE_BYTES);
  return out.ended();
}

/** histogramsEventBytes writes one points event of native histogram samples (each as the default format's `histogram` field). */
function histogramsEventBytes(out: FrameBytesBatcher, id: number, times: string, histograms: readonly string[]): FramedEvents | undefined {
  const text = `data: {"type":"points","data":{"id":${id},${times},"histograms":[${histograms.join(',')}]}}\n\n`;
  out.room(3 * text.length);
  out.putText(text);
  return out.ended();
}

/** base64Length is the length of `bytes` bytes in padded base64. */
function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/**
 * wholeColumns is a series' whole answer as one `points` event's columns when that is cheap: the
 * worker sent its values' text, every value is a finite float (no point is left out, no
 * histogram) and both columns fit one event. The values column is then one piece of the
 * worker's text. Anything else (undefined) goes point by point.
 */
function wholeColumns(s: SeriesColumns, shared: SharedTimestamps): { times: string; values: string } | undefined {
  const text = s.valueText;
  const n = s.timestampsMs.length;
  if (text === undefined || s.histograms !== undefined || n === 0) return undefined;
  const valuesLength = text.at[n] - 1 - text.at[0];
  // Most timestamps in milliseconds are 13 digits and a comma: too long for one event, skip the rest.
  if (valuesLength + n * 13 >= COLUMN_CHARS) return undefined;
  const vs = s.values;
  for (let p = 0; p < n; p++) if (!Number.isFinite(vs[p])) return undefined;
  const times = shared.of(s.timestampsMs);
  // The point-by-point path would cut the columns here; left to it, the events stay the same.
  if (valuesLength + times.length >= COLUMN_CHARS) return undefined;
  return { times, values: text.source.slice(text.at[0], text.at[n] - 1) };
}

/**
 * pointsEvent writes one columns event; native histogram samples go in a `histograms` column
 * (each as the default format's `histogram` field) in place of `values`.
 */
function pointsEvent(id: number, times: string, values: string, histograms: boolean): string {
  return `data: {"type":"points","data":{"id":${id},"timestamps":[${times}],"${histograms ? 'histograms' : 'values'}":[${values}]}}\n\n`;
}

/**
 * CompactRowEncoder writes raw log rows in the compact format: a `stream` event with a tag set
 * (string values, sorted keys, without `message`) the first time the query meets it, then
 * `rows` events whose columns give each row's stream id, millisecond and exact nanosecond
 * timestamps (the milliseconds as the default events write them, for clients whose JSON numbers
 * cannot hold nanoseconds) and line (null when `fields` left the line out). Rows keep the stream's order, whatever their streams.
 * A tag set is known by content: each slice's answer brings new objects for the same set, so
 * objects map to ids through a weak cache and, on a miss, the canonical label key.
 */
export class CompactRowEncoder {
  private readonly byObject = new WeakMap<Labels, number>();
  private readonly byKey = new Map<string, number>();

  /** frames renders rows in `rows` events of about a stream piece, each preceded by the `stream` events it needs. */
  *frames(rows: readonly RawRow[]): Generator<FramedEvents, void, undefined> {
    const out = new FrameBatcher();
    let streams = '';
    let millis = '';
    let times = '';
    let lines = '';
    let count = 0;
    for (const row of rows) {
      const { id, event } = this.idOf(row.tags);
      if (event !== undefined) {
        const full = out.add(event);
        if (full) yield full;
      }
      const line = row.line === undefined ? 'null' : JSON.stringify(row.line);
      if (count === 0) {
        streams = '' + id;
        millis = '' + row.timestampNs / NS_PER_MS;
        times = '' + row.timestampNs;
        lines = line;
      } else {
        streams += ',' + id;
        millis += ',' + row.timestampNs / NS_PER_MS;
        times += ',' + row.timestampNs;
        lines += ',' + line;
      }
      count++;
      if (streams.length + millis.length + times.length + lines.length >= COLUMN_CHARS) {
        // A rows event is a piece long by itself, so it always completes the batch.
        const full = out.add(rowsEvent(streams, millis, times, lines)) ?? out.take();
        count = 0;
        if (full) yield full;
      }
    }
    if (count > 0) out.add(rowsEvent(streams, millis, times, lines));
    const rest = out.take();
    if (rest) yield rest;
  }

  /** idOf returns the tag set's id, with its `stream` event when the query meets the set for the first time. */
  private idOf(tags: Labels): { id: number; event?: string } {
    const known = this.byObject.get(tags);
    if (known !== undefined) return { id: known };
    const key = labelsKey(tags);
    let id = this.byKey.get(key);
    let event: string | undefined;
    if (id === undefined) {
      id = this.byKey.size;
      this.byKey.set(key, id);
      const members = Object.keys(tags)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(tags[k])}`)
        .join(',');
      event = `data: {"type":"stream","data":{"id":${id},"tags":{${members}}}}\n\n`;
    }
    this.byObject.set(tags, id);
    return { id, event };
  }
}

function rowsEvent(streams: string, millis: string, times: string, lines: string): string {
  return `data: {"type":"rows","data":{"streams":[${streams}],"timestamps":[${millis}],"timestamps_ns":[${times}],"lines":[${lines}]}}\n\n`;
}
