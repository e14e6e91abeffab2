import { labelsKey, type Labels, type RawRow, type SeriesColumns } from '../../engine/index.js';
import { PIECE_BYTES, type FramedEvents } from '../http/sse.js';
import { histogramJson, type RenderedSeries, type SeriesRenderer } from './events.js';

/**
 * ResultFormat is how a query's results are written: `events`, the spec's shape (one `result`
 * event per point or row, the default), or `compact`, which a client asks for with the query
 * body's `format` field: each series' tags and label once in a `series` event, then its points
 * as columns in `points` events (native histogram samples in a `histograms` column instead of
 * `values`; raw logs: `stream` events, then `rows` events). Terminal,
 * heartbeat and summary events are the same in both.
 */
export type ResultFormat = 'events' | 'compact';

/**
 * COLUMN_CHARS bounds the text of one columns event, so a long series or a big slice of rows is
 * cut into events of about a stream piece and a client can parse each as it arrives.
 */
const COLUMN_CHARS = PIECE_BYTES;

const NS_PER_MS = 1_000_000n;

/**
 * CompactSeriesEncoder writes series results in the compact format. It shares the query's
 * SeriesRenderer, so a series' tags and label are serialised once per query whichever format
 * is asked for, and numbers are formatted exactly as the default events format them (a number
 * joined to a string prints as JSON prints a finite number; NaN and infinities are dropped).
 * Ids are given in order of first appearance and are stable for the whole query.
 */
export class CompactSeriesEncoder {
  private readonly ids = new Map<RenderedSeries, number>();

  constructor(private readonly renderer: SeriesRenderer) {}

  /**
   * frames turns a slice's series into, per series with any finite point, its `series` event
   * (the first time the query meets it) and `points` events holding its timestamps and values
   * in time order. Slices come in time order, so each series' columns stay in time order
   * across the stream.
   */
  *frames(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    const out = new EventText();
    // Series of one slice mostly share their steps: a timestamp's text is kept by its position
    // and reused while the next series has the same timestamp there (number-to-text is the
    // costly part of a point).
    const stepMs: number[] = [];
    const stepText: string[] = [];
    for (const s of series) {
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
        if (id < 0) id = this.idOf(s.labels, out);
        if (times !== '' && inHistograms !== (h !== undefined)) {
          // A series switching between floats and histograms starts a new points event.
          out.add(pointsEvent(id, times, values, inHistograms));
          times = '';
          values = '';
        }
        inHistograms = h !== undefined;
        const cell = h === undefined ? '' + value : histogramJson(h);
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
          out.add(pointsEvent(id, times, values, inHistograms));
          times = '';
          values = '';
          const full = out.takeIfFull();
          if (full) yield full;
        }
      }
      if (times !== '') out.add(pointsEvent(id, times, values, inHistograms));
      const full = out.takeIfFull();
      if (full) yield full;
    }
    const rest = out.take();
    if (rest) yield rest;
  }

  /** idOf returns the series' id, first writing its `series` event when the query meets it for the first time. */
  private idOf(labels: Labels, out: EventText): number {
    const rendered = this.renderer.of(labels);
    let id = this.ids.get(rendered);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(rendered, id);
      out.add(`data: {"type":"series","data":{"id":${id},"tags":${JSON.stringify(rendered.tags)},"label":${JSON.stringify(rendered.label)}}}\n\n`);
    }
    return id;
  }
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
    const out = new EventText();
    let streams = '';
    let millis = '';
    let times = '';
    let lines = '';
    let count = 0;
    for (const row of rows) {
      const id = this.idOf(row.tags, out);
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
        out.add(rowsEvent(streams, millis, times, lines));
        count = 0;
        const full = out.take();
        if (full) yield full;
      }
    }
    if (count > 0) out.add(rowsEvent(streams, millis, times, lines));
    const rest = out.take();
    if (rest) yield rest;
  }

  private idOf(tags: Labels, out: EventText): number {
    const known = this.byObject.get(tags);
    if (known !== undefined) return known;
    const key = labelsKey(tags);
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.byKey.size;
      this.byKey.set(key, id);
      const members = Object.keys(tags)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(tags[k])}`)
        .join(',');
      out.add(`data: {"type":"stream","data":{"id":${id},"tags":{${members}}}}\n\n`);
    }
    this.byObject.set(tags, id);
    return id;
  }
}

function rowsEvent(streams: string, millis: string, times: string, lines: string): string {
  return `data: {"type":"rows","data":{"streams":[${streams}],"timestamps":[${millis}],"timestamps_ns":[${times}],"lines":[${lines}]}}\n\n`;
}

/** EventText gathers framed events; the encoders hand it over once it is about a stream piece long. */
class EventText {
  private text = '';
  private count = 0;

  add(framed: string): void {
    this.text += framed;
    this.count++;
  }

  takeIfFull(): FramedEvents | undefined {
    return this.text.length >= PIECE_BYTES ? this.take() : undefined;
  }

  take(): FramedEvents | undefined {
    if (this.count === 0) return undefined;
    const batch = { framed: this.text, count: this.count };
    this.text = '';
    this.count = 0;
    return batch;
  }
}
