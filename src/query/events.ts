import { emptyPointColumns, formatLabels, inNameOrder, labelSetKey, pointColumnsOf, renderHistogram, seriesKeyOf, type FloatHistogram, type Labels, type SeriesColumns } from '../../engine/index.js';
import { FrameBytesBatcher } from '../http/frameBytes.js';
import type { FramedEvents } from '../http/sse.js';

/**
 * CANONICAL_INTEGER is an integer written the one way it prints back: no sign but a minus, no
 * leading zero, and not `-0` (JSON would print it as 0).
 */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * renderTags builds a result's `tags`: keys sorted, and values that are integers written as
 * JSON integers (the spec's rule), e.g. `{"code": 500}`. Only canonical integers convert, so
 * a value reads back as the same text: `007`, `+1`, `-0` and `1e3` stay strings, and so do
 * values too large to be exact in a JSON number, so no client ever sees a rounded id.
 */
export function renderTags(labels: Labels): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const key of Object.keys(labels).sort()) {
    const value = labels[key];
    out[key] = CANONICAL_INTEGER.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }
  return out;
}

/**
 * RenderedSeries is what every event of one series shares: its tags and display label, and
 * the bytes of a point event around the value and timestamp, so a point costs a few copies
 * instead of an object and a JSON.stringify.
 */
export interface RenderedSeries {
  tags: Record<string, string | number>;
  label: string;
  /** head is the framed event up to its value, as UTF-8: `data: {"type":"result","data":{"tags":{...},"value":`. */
  head: Buffer;
  /** histogramHead is `head` for a native histogram point: it ends in `"histogram":` instead of `"value":`. */
  histogramHead: string;
  /** tail follows the timestamp, as UTF-8: `,"label":"..."}}` and the blank line. */
  tail: Buffer;
  /** seriesTail follows a compact `series` event's id: `,"tags":{...},"label":"..."}}` and the blank line. */
  seriesTail: string;
  /** seriesTailBytes is `seriesTail` as UTF-8, for encoders that write bytes. */
  seriesTailBytes: Buffer;
}

/** POINT_MIDDLE separates a point event's value from its timestamp. */
const POINT_MIDDLE = ',"timestamp":';

/**
 * SHARED_RENDER_CHARS bounds the text of the rendered series kept across queries (about 8 MB
 * of one-byte strings, some ten thousand series of typical labels).
 */
const SHARED_RENDER_CHARS = 8 * 2 ** 20;

/**
 * SharedRenders keeps rendered series across queries: dashboards ask for the same series again
 * and again, and an instant query over 10,000 series spent most of the main thread's time
 * (sorting, JSON.stringify, joining) rendering them anew. The text depends on the labels alone,
 * so one org's entry is what any query reading that series would render. Over its bound it
 * drops the oldest entries not used since they were last passed over (a second chance, as a
 * clock cache gives): a hit only sets a flag, where moving the entry to the back of the Map
 * cost about a microsecond per series.
 */
export class SharedRenders {
  private readonly entries = new Map<string, { rendered: RenderedSeries; chars: number; used: boolean }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  /**
   * of is the rendering of the series keyed `key` (seriesKeyOf); `source.labels` is read only
   * when it is not kept (a series itself serves: no closure to allocate per series).
   */
  of(key: string, source: { readonly labels: Labels }): RenderedSeries {
    const known = this.entries.get(key);
    if (known !== undefined) {
      known.used = true;
      return known.rendered;
    }
    const rendered = renderSeries(source.labels);
    const chars = key.length + rendered.head.length + rendered.tail.length + rendered.seriesTail.length + rendered.seriesTailBytes.length;
    this.entries.set(key, { rendered, chars, used: false });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      if (entry.used) {
        entry.used = false;
        this.entries.set(oldest, entry);
      } else {
        this.chars -= entry.chars;
      }
    }
    return rendered;
  }
}

const sharedRenders = new SharedRenders(SHARED_RENDER_CHARS);

/**
 * sharedRendering is a series' rendering straight from the renderings shared across queries,
 * for encoders that keep their own per-query identity of series (or need none): one lookup,
 * where SeriesRenderer's per-query map in front of it is a second.
 */
export function sharedRendering(s: SeriesColumns): RenderedSeries {
  return sharedRenders.of(seriesKeyOf(s), s);
}

/**
 * SeriesRenderer renders each series of a query once: its tags, label and the constant text of
 * its point events. Series are keyed by their label-set key (seriesKeyOf), not by the labels
 * object: every slice's answer brings new objects for the same series, so an identity key
 * would render each series again in every slice, and a worker's series carries its key, so a
 * series already rendered never has its labels read. Within a query a series keeps one
 * RenderedSeries (the compact format numbers series by it); across queries they come from
 * SharedRenders.
 */
export class SeriesRenderer {
  private readonly cache = new Map<string, RenderedSeries>();

  /** ofSeries is the rendering of a series. */
  ofSeries(s: SeriesColumns): RenderedSeries {
    return this.ofKey(seriesKeyOf(s), s);
  }

  /** of is the rendering of a label set. */
  of(labels: Labels): RenderedSeries {
    return this.ofKey(labelSetKey(labels), { labels });
  }

  private ofKey(key: string, source: { readonly labels: Labels }): RenderedSeries {
    let entry = this.cache.get(key);
    if (!entry) this.cache.set(key, (entry = sharedRenders.of(key, source)));
    return entry;
  }

  /**
   * pointFrames turns series into one result event per (series, timestamp), time-major so a
   * chart fills left to right; NaN and infinities are dropped, as the spec requires. The events
   * come already framed as UTF-8 bytes, in batches of about a stream piece, made as the stream
   * takes them, so a slice's text never all exists at once. An event is its series' head bytes,
   * the value's text, the timestamp's bytes (made once per timestamp) and the series' tail
   * bytes. Values come as the worker's text where it sent it (SeriesColumns.valueText).
   */
  *pointFrames(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    const count = series.length;
    // Straight from the shared renderings: point events need no series identity within the
    // query (the compact format's ids do), and this query's own map cost a second lookup per
    // series (a new key string is hashed once either way), a tenth of the answering thread's
    // time for 10,000 series at one instant.
    const rendered = series.map(sharedRendering);
    // Each series' points are read where they lie (pointColumnsOf: a worker's answer's columns),
    // so no per-series view is made; cursors walk positions in those columns.
    const times: Float64Array[] = new Array(count);
    const values: Float64Array[] = new Array(count);
    const texts: (string | undefined)[] = new Array(count);
    const textAts: (Uint32Array | undefined)[] = new Array(count);
    const firsts = new Uint32Array(count);
    const cursors = new Uint32Array(count);
    const ends = new Uint32Array(count);
    const where = emptyPointColumns();
    for (let i = 0; i < count; i++) {
      const c = pointColumnsOf(series[i], where);
      times[i] = c.timestampsMs;
      values[i] = c.values;
      texts[i] = c.text;
      textAts[i] = c.textAt;
      firsts[i] = cursors[i] = c.from;
      ends[i] = c.to;
    }
    const batch = new FrameBytesBatcher();
    for (;;) {
      let next = Infinity;
      for (let i = 0; i < count; i++) {
        const c = cursors[i];
        if (c < ends[i] && times[i][c] < next) next = times[i][c];
      }
      if (next === Infinity) break;
      // A number joined to a string prints as JSON prints a finite number (-0 as 0, 1e21 as 1e+21).
      const timestamp = Buffer.from(POINT_MIDDLE + next, 'latin1');
      for (let i = 0; i < count; i++) {
        const c = cursors[i];
        if (c >= ends[i] || times[i][c] !== next) continue;
        cursors[i]++;
        const parts = rendered[i];
        const histogram = series[i].histograms?.[c - firsts[i]];
        const around = timestamp.length + parts.tail.length;
        if (histogram !== undefined) {
          const text = parts.histogramHead + histogramJson(histogram);
          batch.room(3 * text.length + around);
          batch.putText(text);
        } else {
          const value = values[i][c];
          if (!Number.isFinite(value)) continue;
          // The worker's text of the value when it sent one: the same characters, not formatted here.
          const source = texts[i];
          const text = source === undefined ? '' + value : source;
          const from = source === undefined ? 0 : textAts[i]![c];
          const to = source === undefined ? text.length : textAts[i]![c + 1] - 1;
          batch.room(parts.head.length + (to - from) + around);
          batch.put(parts.head);
          batch.putAscii(text, from, to);
        }
        batch.put(timestamp);
        batch.put(parts.tail);
        const full = batch.ended();
        if (full) yield full;
      }
    }
    const rest = batch.take();
    if (rest) yield rest;
  }
}

function renderSeries(labels: Labels): RenderedSeries {
  const tags = renderTags(labels);
  // Names in order, so a label set's text does not depend on which of its equal forms came first.
  const label = formatLabels(inNameOrder(labels));
  const tagsJson = JSON.stringify(tags);
  const labelJson = JSON.stringify(label);
  const seriesTail = `,"tags":${tagsJson},"label":${labelJson}}}\n\n`;
  return {
    tags,
    label,
    head: Buffer.from(`data: {"type":"result","data":{"tags":${tagsJson},"value":`),
    histogramHead: `data: {"type":"result","data":{"tags":${tagsJson},"histogram":`,
    tail: Buffer.from(`,"label":${labelJson}}}\n\n`),
    seriesTail,
    seriesTailBytes: Buffer.from(seriesTail),
  };
}

/**
 * histogramJson renders a native histogram sample's `histogram` field: count, sum and buckets
 * `[boundaryRule, lower, upper, count]` as Prometheus' API lists them, numbers as JSON numbers.
 * JSON has no infinities or NaN, and a histogram has them where a float point would be dropped
 * (the open ends of custom buckets, a NaN sum), so those few are written as Prometheus writes
 * them, the strings "+Inf", "-Inf" and "NaN".
 */
export function histogramJson(h: FloatHistogram): string {
  const r = renderHistogram(h);
  let out = `{"count":${num(r.count)},"sum":${num(r.sum)},"buckets":[`;
  for (let i = 0; i < r.buckets.length; i++) {
    const [rule, lower, upper, count] = r.buckets[i];
    out += `${i > 0 ? ',' : ''}[${rule},${num(lower)},${num(upper)},${num(count)}]`;
  }
  return out + ']}';
}

function num(x: number): string {
  if (Number.isFinite(x)) return String(x);
  return Number.isNaN(x) ? '"NaN"' : x > 0 ? '"+Inf"' : '"-Inf"';
}
