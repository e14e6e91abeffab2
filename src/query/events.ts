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
 * POINT_BLOCK_STEPS is how many steps a block of point events spans (PointEventWriter). gzip of
 * a 1,000-series hour at 15 s steps (48 MB of events), against every timestamp's events across
 * all series: blocks of 4 / 16 / 32 / 64 steps took 0.79x / 0.68x / 0.61x / 0.58x the time and
 * came out 1.3x / 1.5x / 1.7x / 1.8x smaller; the whole hour series by series 0.58x and 2.0x.
 * 32 keeps a long range's chart filling in several steps while taking most of the gain.
 */
export const POINT_BLOCK_STEPS = 32;

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
   * pointFrames writes every point of `series` as result events at once, in the blocks a
   * PointEventWriter makes (grid: the query's steps; without one, the grid the points lie on).
   */
  *pointFrames(series: readonly SeriesColumns[], grid: PointGrid | undefined = inferPointGrid(series)): Generator<FramedEvents, void, undefined> {
    yield* new PointEventWriter(grid).whole(series);
  }
}

/** PointGrid is a query's steps, which blocks of point events are counted in: its first step and the step. */
export interface PointGrid {
  startMs: number;
  stepMs: number;
}

/**
 * inferPointGrid is the grid series' points lie on, for answers written whole without their
 * query's window: the earliest point, and the smallest gap between two points of a series.
 * Without any such gap (one point a series) there is no grid, and all points make one block.
 */
export function inferPointGrid(series: readonly SeriesColumns[]): PointGrid | undefined {
  let startMs = Infinity;
  let stepMs = Infinity;
  const where = emptyPointColumns();
  for (const s of series) {
    const { timestampsMs, from, to } = pointColumnsOf(s, where);
    if (to > from) startMs = Math.min(startMs, timestampsMs[from]);
    for (let c = from + 1; c < to; c++) stepMs = Math.min(stepMs, timestampsMs[c] - timestampsMs[c - 1]);
  }
  return startMs === Infinity || stepMs === Infinity || !(stepMs > 0) ? undefined : { startMs, stepMs };
}

/** PointPart is one answer's points in one block: the series, where their points lie, and each one's run of positions. */
interface PointPart {
  series: readonly SeriesColumns[];
  rendered: readonly RenderedSeries[];
  times: readonly Float64Array[];
  values: readonly Float64Array[];
  texts: readonly (string | undefined)[];
  textAts: readonly (Uint32Array | undefined)[];
  /** firsts are each series' first position (its histograms are numbered from it). */
  firsts: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
}

/**
 * PointEventWriter writes one query's points as the spec's result events (one per series and
 * timestamp; NaN and infinities are dropped, as the spec requires), a block of
 * POINT_BLOCK_STEPS steps at a time: blocks in time order, so a chart still fills left to
 * right, and within a block series by series, each in time order. Consecutive events of one
 * series then differ only in their value and timestamp, so a compressor matches nearly all of
 * an event against the one before it; when every timestamp's events went across all series,
 * a series' previous event lay a thousand events back for 1,000 series, beyond deflate's
 * 32 KiB window.
 *
 * Blocks are counted from the query's first step, so where an answer arrives cut into pieces
 * (the pool's time slices, the results cache's cells and its fresh tail) does not change the
 * bytes: the last block of each piece is held until the next piece shows whether it goes on,
 * and a block that spans pieces is written series by series across them (series in key order,
 * as range answers come). `rest` writes what is held once the answer is complete.
 *
 * The events come already framed as UTF-8 bytes, in batches of about a stream piece, made as
 * the stream takes them, so a slice's text never all exists at once. An event is its series'
 * head bytes, the value's text, the timestamp's bytes (made once per step of a block) and the
 * series' tail bytes. Values come as the worker's text where it sent it (SeriesColumns.valueText).
 */
export class PointEventWriter {
  private readonly originMs: number;
  private readonly stepMs: number;
  private readonly blockMs: number;
  private held: PointPart[] = [];
  private heldBlock = -1;
  /** stamps are the current block's timestamps' bytes, by step within the block. */
  private readonly stamps: (Buffer | undefined)[] = new Array(POINT_BLOCK_STEPS);
  private lastStampMs = Number.NaN;
  private lastStamp: Buffer | undefined;

  /** `batchBytes` is how much text a batch of events holds (the stream's batchBytes; a piece by default). */
  constructor(
    grid: PointGrid | undefined,
    private readonly batchBytes?: number,
  ) {
    this.originMs = grid?.startMs ?? 0;
    this.stepMs = grid !== undefined && grid.stepMs > 0 ? grid.stepMs : Infinity;
    this.blockMs = this.stepMs * POINT_BLOCK_STEPS;
  }

  /** frames writes the blocks of `series` (one piece of the answer, later than any before it) that no later piece can add to. */
  *frames(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    const batch = new FrameBytesBatcher(this.batchBytes);
    yield* this.write(series, batch);
    const rest = batch.take();
    if (rest) yield rest;
  }

  /** rest writes the block held back for a next piece: the answer is complete. */
  *rest(): Generator<FramedEvents, void, undefined> {
    const batch = new FrameBytesBatcher(this.batchBytes);
    yield* this.writeHeld(batch);
    const rest = batch.take();
    if (rest) yield rest;
  }

  /** whole writes `series` as the whole answer: `frames` and `rest` in one run of batches. */
  *whole(series: readonly SeriesColumns[]): Generator<FramedEvents, void, undefined> {
    const batch = new FrameBytesBatcher(this.batchBytes);
    yield* this.write(series, batch);
    yield* this.writeHeld(batch);
    const rest = batch.take();
    if (rest) yield rest;
  }

  private *write(series: readonly SeriesColumns[], batch: FrameBytesBatcher): Generator<FramedEvents, void, undefined> {
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
    for (;;) {
      let firstMs = Infinity;
      for (let i = 0; i < count; i++) if (cursors[i] < ends[i] && times[i][cursors[i]] < firstMs) firstMs = times[i][cursors[i]];
      if (firstMs === Infinity) break;
      const block = this.blockOf(firstMs);
      const endMs = this.blockMs === Infinity ? Infinity : this.originMs + (block + 1) * this.blockMs;
      const starts = cursors.slice();
      let more = false;
      for (let i = 0; i < count; i++) {
        let c = cursors[i];
        const end = ends[i];
        const t = times[i];
        while (c < end && t[c] < endMs) c++;
        cursors[i] = c;
        if (c < end) more = true;
      }
      const part: PointPart = { series, rendered, times, values, texts, textAts, firsts, starts, ends: cursors.slice() };
      if (block === this.heldBlock) {
        this.held.push(part);
        continue;
      }
      yield* this.writeHeld(batch);
      if (more) {
        yield* this.writeBlock([part], block, batch);
      } else {
        this.held = [part];
        this.heldBlock = block;
      }
    }
  }

  /** blockOf is the block a time falls in, counted from the grid's origin. */
  private blockOf(t: number): number {
    if (this.blockMs === Infinity) return 0;
    let block = Math.floor((t - this.originMs) / this.blockMs);
    // Division may round across a boundary; the boundaries themselves are exact.
    if (this.originMs + block * this.blockMs > t) block--;
    else if (this.originMs + (block + 1) * this.blockMs <= t) block++;
    return block;
  }

  private *writeHeld(batch: FrameBytesBatcher): Generator<FramedEvents, void, undefined> {
    if (this.held.length === 0) return;
    const parts = this.held;
    this.held = [];
    yield* this.writeBlock(parts, this.heldBlock, batch);
    this.heldBlock = -1;
  }

  /** writeBlock writes one block from its parts (several when it spans pieces of the answer). */
  private *writeBlock(parts: readonly PointPart[], block: number, batch: FrameBytesBatcher): Generator<FramedEvents, void, undefined> {
    const blockStartMs = this.originMs + block * this.blockMs;
    this.stamps.fill(undefined);
    for (const [part, i] of parts.length === 1 ? seriesOfOne(parts[0]) : seriesInKeyOrder(parts)) {
      const rendering = part.rendered[i];
      const times = part.times[i];
      const values = part.values[i];
      const source = part.texts[i];
      const textAt = part.textAts[i];
      const histograms = part.series[i].histograms;
      const end = part.ends[i];
      for (let c = part.starts[i]; c < end; c++) {
        const t = times[c];
        const histogram = histograms?.[c - part.firsts[i]];
        const timestamp = this.stampOf(t, blockStartMs);
        const around = timestamp.length + rendering.tail.length;
        if (histogram !== undefined) {
          const text = rendering.histogramHead + histogramJson(histogram);
          batch.room(3 * text.length + around);
          batch.putText(text);
        } else {
          const value = values[c];
          if (!Number.isFinite(value)) continue;
          // The worker's text of the value when it sent one: the same characters, not formatted here.
          const text = source === undefined ? '' + value : source;
          const from = source === undefined ? 0 : textAt![c];
          const to = source === undefined ? text.length : textAt![c + 1] - 1;
          batch.room(rendering.head.length + (to - from) + around);
          batch.put(rendering.head);
          batch.putAscii(text, from, to);
        }
        batch.put(timestamp);
        batch.put(rendering.tail);
        const full = batch.ended();
        if (full) yield full;
      }
    }
  }

  /** stampOf is `,"timestamp":` and the time, made once per step of the block (and once for an instant's points). */
  private stampOf(t: number, blockStartMs: number): Buffer {
    const step = (t - blockStartMs) / this.stepMs;
    if (Number.isInteger(step) && step >= 0 && step < POINT_BLOCK_STEPS) {
      // A number joined to a string prints as JSON prints a finite number (-0 as 0, 1e21 as 1e+21).
      return (this.stamps[step] ??= Buffer.from(POINT_MIDDLE + t, 'latin1'));
    }
    if (t !== this.lastStampMs) {
      this.lastStampMs = t;
      this.lastStamp = Buffer.from(POINT_MIDDLE + t, 'latin1');
    }
    return this.lastStamp!;
  }
}

/** seriesOfOne lists a part's series that have points in the block, in its order. */
function* seriesOfOne(part: PointPart): Generator<[PointPart, number], void, undefined> {
  for (let i = 0; i < part.series.length; i++) if (part.starts[i] < part.ends[i]) yield [part, i];
}

/**
 * seriesInKeyOrder lists the series of a block that spans parts: merged by key (seriesKeyOf),
 * as each part's series come sorted, a series in several parts once per part in their order.
 */
function seriesInKeyOrder(parts: readonly PointPart[]): Array<[PointPart, number]> {
  let merged: Array<{ key: string; at: [PointPart, number] }> = [];
  for (const part of parts) {
    const next: typeof merged = [];
    for (const at of seriesOfOne(part)) next.push({ key: seriesKeyOf(part.series[at[1]]), at });
    const out: typeof merged = [];
    let a = 0;
    let b = 0;
    while (a < merged.length || b < next.length) {
      if (b >= next.length || (a < merged.length && merged[a].key <= next[b].key)) out.push(merged[a++]);
      else out.push(next[b++]);
    }
    merged = out;
  }
  return merged.map((m) => m.at);
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
