import { lowerBound, upperBound } from './bounds.js';
import { GrowableBigInt64, GrowableFloat64, GrowableUint32 } from './growable.js';
import { copyWords, int64Words, wordsLess } from './int64Words.js';
import { ABORT_CHECK_ROWS, OffsetReader, addLine, allInFirstWindow, type CountWindows, type LogCountReader, type OpenCounts } from './logCounts.js';
import { labelsKey, sortKeepingEmpty, sortLabels, type Labels } from './labels.js';
import type { HeadRows } from './logChunk.js';
import type { LineMatch } from './lineMatch.js';
import { LogHeadSnapshots, SNAPSHOT_CHUNK_LIMITS, type ChunkLimits, type LogHeadSnapshot } from './logHeadSnapshots.js';
import { compileMatchers, matchesAll, type CompiledMatcher, type LabelMatcher } from './matchers.js';

/**
 * LogEntry is one log line, whatever protocol carried it, as the decoders produce it and the
 * storage keeps it: `message` and `level` are columns, everything else a tag.
 */
export interface LogEntry {
  /** nanoseconds since the epoch */
  timestampNs: bigint;
  message: string;
  /** lowercase severity: trace, debug, info, warn, error, fatal, or 'unknown'; '' for none (no `level` label) */
  level: string;
  /** every other attribute, flattened, keys with '.' replaced by '_' */
  tags: Record<string, string>;
}

/**
 * LogStreamData is a run of log lines sharing one full tag set (level included), in time
 * order: the unit a LogQL pipeline processes, as a Loki stream is.
 *
 * Readers of stored lines make `messages` when it is read, and again each time (read it once),
 * and offer `messageAt` to read one line at a time (lineReader): a query's streams all come
 * back from one select, and messages made for every stream at once all lived until the last
 * stream was processed, which made most of the collector's work in a pipeline query over a
 * million lines. Read a line at a time, no line outlives its turn through the pipeline.
 */
export interface LogStreamData {
  tags: Labels;
  timestampsNs: BigInt64Array;
  readonly messages: string[];
  /** messageAt, where a reader offers it, makes line i alone: a caller that takes each line once keeps none. */
  readonly messageAt?: (i: number) => string;
}

/**
 * lazyLogStream is a LogStreamData whose lines are made when read, from `messageAt`: all of
 * them at each read of `messages`, or one at a time. `messageAt` is a way of reading, not
 * data: it is not enumerable, so copies and comparisons of streams see the lines.
 */
export function lazyLogStream(tags: Labels, timestampsNs: BigInt64Array, messageAt: (i: number) => string): LogStreamData {
  const stream = {
    tags,
    timestampsNs,
    get messages(): string[] {
      return Array.from({ length: timestampsNs.length }, (_, i) => messageAt(i));
    },
  };
  Object.defineProperty(stream, 'messageAt', { value: messageAt, enumerable: false });
  return stream;
}

/** lineReader reads a stream's lines one at a time: through its messageAt, or from its messages made once, on first use. */
export function lineReader(stream: LogStreamData): (i: number) => string {
  if (stream.messageAt !== undefined) return stream.messageAt;
  let messages: string[] | undefined;
  return (i) => (messages ??= stream.messages)[i];
}

/**
 * LogProjection says which parts of a line a reader needs. With `lines: false` the caller only
 * counts lines and reads their tags and timestamps: messages come back as empty strings, which
 * spares decoding every message of a segment (a log-volume panel needs none of them).
 */
export interface LogProjection {
  lines: boolean;
}

export interface LogReader extends Partial<LogCountReader> {
  /** select returns matching lines in [minNs, maxNs], grouped by tag set, each group oldest first. */
  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[];
}

/**
 * TagSetVisitor receives one distinct tag set; returning false stops the scan, so a caller
 * that only needs the first few answers (a listing with a limit) does not pay for the rest.
 */
export type TagSetVisitor = (tags: Labels) => boolean | void;

/**
 * LogTagSetReader lists the tag sets of log lines without their messages: what label
 * browsers need, at a fraction of the cost of `select`, which copies every matching line.
 */
export interface LogTagSetReader {
  /** forEachTagSet visits each distinct full tag set (level included) with lines in [minNs, maxNs] matching `matchers`. */
  forEachTagSet(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, visit: TagSetVisitor): void;
}

/** DEFAULT_INDEXED_TAGS are the tags that form a stream and prune segments, per the architecture. */
export const DEFAULT_INDEXED_TAGS: readonly string[] = [
  'service_name',
  'service_namespace',
  'deployment_environment',
  'k8s_namespace_name',
  'k8s_pod_name',
  'k8s_container_name',
  'k8s_deployment_name',
  'k8s_node_name',
  'host_name',
  'job',
  'app',
  'env',
];

interface Stream {
  id: number;
  tags: Labels;
}

/**
 * LogHead holds one org's recent log lines. A line's indexed tags pick its stream (few,
 * stable, shared by many lines); its other tags are kept per line as a canonical JSON string,
 * so lines with the same attributes share one string and matchers on attributes run once per
 * distinct attribute set, not once per line. Levels and attribute sets are interned: rows hold
 * their ids, so a scan groups rows by comparing numbers, never by hashing strings.
 *
 * Empty values follow Loki: indexed tags play the part of stream labels, where an empty value
 * is the same as none (Loki drops them on write), while the other tags play the part of
 * structured metadata, where `name=""` is kept and sets its lines apart from lines without
 * `name`. Whoever ingests drops empty values that Loki would drop (stream labels that are not
 * indexed here).
 */
export class LogHead implements LogReader, LogTagSetReader {
  private readonly streams = new Map<string, Stream>();
  private readonly streamList: Stream[] = [];
  private readonly timestamps = new GrowableBigInt64(1024);
  /** approxNs holds each timestamp as a float (within a microsecond), for range checks without BigInt reads. */
  private readonly approxNs = new GrowableFloat64(1024);
  private readonly streamIds = new GrowableUint32(1024);
  private readonly levelIds = new GrowableUint32(1024);
  private readonly attributeIds = new GrowableUint32(1024);
  /** tail holds the messages of the rows not yet sealed into a chunk (see LogHeadSnapshots); sealed rows' messages live in their chunks. */
  private tail: string[] = [];
  private readonly levels = new Interner();
  private readonly attributes = new Interner();
  /** inOrder stays true while every line arrived no earlier than the one before: a window is then found by binary search. */
  private inOrder = true;
  /** snapshots packs this head for worker tasks, once per change (see logHeadSnapshots.ts). */
  private readonly snapshots: LogHeadSnapshots;
  minNs: bigint | undefined;
  maxNs: bigint | undefined;
  bytes = 0;

  /** `chunkLimits` say when snapshot rows are sealed into a chunk; tests make them small. */
  constructor(
    private readonly indexedTags: ReadonlySet<string> = new Set(DEFAULT_INDEXED_TAGS),
    chunkLimits: ChunkLimits = SNAPSHOT_CHUNK_LIMITS,
  ) {
    this.snapshots = new LogHeadSnapshots(chunkLimits);
  }

  get rowCount(): number {
    return this.timestamps.length;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** streamOf returns the stream tags (the indexed ones, sorted) of a line with `tags`, and its key. */
  streamOf(tags: Readonly<Record<string, string>>): { tags: Labels; key: string } {
    const indexed: Record<string, string> = {};
    for (const k in tags) if (this.indexedTags.has(k)) indexed[k] = tags[k];
    const streamTags = sortLabels(indexed);
    return { tags: streamTags, key: labelsKey(streamTags) };
  }

  /** hasStream tells whether the head already holds the stream with this key (from streamOf). */
  hasStream(key: string): boolean {
    return this.streams.has(key);
  }

  append(records: readonly LogEntry[]): void {
    for (const r of records) {
      const indexed: Record<string, string> = {};
      const rest: Record<string, string> = {};
      for (const k in r.tags) {
        if (this.indexedTags.has(k)) indexed[k] = r.tags[k];
        else rest[k] = r.tags[k];
      }
      const streamTags = sortLabels(indexed);
      const key = labelsKey(streamTags);
      let stream = this.streams.get(key);
      if (!stream) {
        stream = { id: this.streamList.length, tags: streamTags };
        this.streams.set(key, stream);
        this.streamList.push(stream);
      }
      if (this.maxNs !== undefined && r.timestampNs < this.maxNs) this.inOrder = false;
      this.timestamps.push(r.timestampNs);
      this.approxNs.push(Number(r.timestampNs));
      this.streamIds.push(stream.id);
      this.levelIds.push(this.levels.id(r.level));
      this.attributeIds.push(this.attributes.id(JSON.stringify(sortKeepingEmpty(rest))));
      this.tail.push(r.message);
      this.bytes += r.message.length;
      if (this.minNs === undefined || r.timestampNs < this.minNs) this.minNs = r.timestampNs;
      if (this.maxNs === undefined || r.timestampNs > this.maxNs) this.maxNs = r.timestampNs;
      if (this.snapshots.appended(this.timestamps.length, Buffer.byteLength(r.message, 'utf8'), () => this.headRows())) this.tail = [];
    }
  }

  /** message is a row's message: the tail's string, or decoded from the row's sealed chunk. */
  private message(row: number): string {
    const sealedRows = this.snapshots.sealedRows;
    return row >= sealedRows ? this.tail[row - sealedRows] : this.snapshots.message(row);
  }

  /**
   * scan visits the rows with timestamps in [minNs, maxNs] whose stream tags match, in arrival
   * order, with a numeric id of the row's (stream, level, attributes) group. In-order heads
   * find the window by binary search; otherwise float timestamps reject most rows and only
   * rows within a microsecond of a bound are compared exactly.
   */
  private scan(compiled: readonly CompiledMatcher[], minNs: bigint, maxNs: bigint, onRow: (row: number, group: number) => boolean | void): void {
    const ts = this.timestamps.view();
    const approx = this.approxNs.view();
    const sids = this.streamIds.view();
    const levelIds = this.levelIds.view();
    const attributeIds = this.attributeIds.view();
    const indexedMatchers = compiled.filter((m) => this.indexedTags.has(m.name));
    // 0: stream not yet decided, 1: its stream tags match, 2: they do not.
    const streamState = new Uint8Array(this.streamList.length);
    const streams = this.streamList.length;
    const levels = this.levels.size;
    let from = 0;
    let end = ts.length;
    if (this.inOrder) {
      from = lowerBound(ts, minNs);
      end = upperBound(ts, maxNs);
    }
    const lo = Number(minNs) + APPROX_MARGIN_NS;
    const hi = Number(maxNs) - APPROX_MARGIN_NS;
    const exact = !this.inOrder;
    for (let i = from; i < end; i++) {
      if (exact) {
        const a = approx[i];
        if (!(a > lo && a < hi)) {
          const t = ts[i];
          if (t < minNs || t > maxNs) continue;
        }
      }
      const sid = sids[i];
      let state = streamState[sid];
      if (state === 0) streamState[sid] = state = matchesAll(this.streamList[sid].tags, indexedMatchers) ? 1 : 2;
      if (state === 2) continue;
      if (onRow(i, (attributeIds[i] * levels + levelIds[i]) * streams + sid) === false) return;
    }
  }

  private groupTags(row: number): Labels {
    return composeTags(this.streamList[this.streamIds.view()[row]].tags, this.levels.value(this.levelIds.view()[row]), this.attributes.value(this.attributeIds.view()[row]));
  }

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[] {
    const lines = projection?.lines !== false;
    const compiled = compileMatchers(matchers);
    // Decisions are made once per (stream, level, attributes) group; groups rendering to the
    // same tag set (a `level` attribute shadowed by the level column) share one bucket.
    const groups = new Map<number, Bucket | null>();
    const buckets = new Map<string, Bucket>();
    this.scan(compiled, minNs, maxNs, (row, id) => {
      let bucket = groups.get(id);
      if (bucket === undefined) {
        const tags = this.groupTags(row);
        bucket = null;
        if (matchesAll(tags, compiled)) {
          const key = labelsKey(tags);
          bucket = buckets.get(key) ?? null;
          if (bucket === null) buckets.set(key, (bucket = { tags, rows: new GrowableUint32(64) }));
        }
        groups.set(id, bucket);
      }
      if (bucket !== null) bucket.rows.push(row);
    });
    const ts = this.timestamps.view();
    // Timestamps are compared and copied through their 32-bit words (int64Words.ts).
    const words = int64Words(ts);
    const out: LogStreamData[] = [];
    for (const { tags, rows: growable } of buckets.values()) {
      const rows = growable.view();
      if (!isTimeOrdered(ts, words, rows)) rows.sort((a, b) => (ts[a] < ts[b] ? -1 : ts[a] > ts[b] ? 1 : a - b));
      const timestampsNs = new BigInt64Array(rows.length);
      const outWords = int64Words(timestampsNs);
      const messages = new Array<string>(rows.length);
      for (let j = 0; j < rows.length; j++) {
        if (words !== undefined && outWords !== undefined) copyWords(words, rows[j], outWords, j);
        else timestampsNs[j] = ts[rows[j]];
        messages[j] = lines ? this.message(rows[j]) : '';
      }
      out.push({ tags, timestampsNs, messages });
    }
    return out;
  }

  /**
   * countLines is LogCountReader.countLines over the head: the rows `select` would return,
   * each added to its group's array as it is scanned, with no row list or timestamp copy.
   * With `lines`, a row counts only when its message passes the filters' test.
   */
  countLines(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, windows: CountWindows, open: OpenCounts, checkAbort?: () => void, lines?: LineMatch): void {
    const compiled = compileMatchers(matchers);
    const groups = new Map<number, Float64Array | null>();
    const oneWindow = allInFirstWindow(windows, minNs, maxNs);
    const time = new OffsetReader(this.timestamps.view(), windows.baseNs);
    const { stepNs, rangeNs, steps } = windows;
    let scanned = 0;
    this.scan(compiled, minNs, maxNs, (row, id) => {
      if (++scanned % ABORT_CHECK_ROWS === 0) checkAbort?.();
      let diff = groups.get(id);
      if (diff === undefined) {
        const tags = this.groupTags(row);
        diff = matchesAll(tags, compiled) ? (open(tags) ?? null) : null;
        groups.set(id, diff);
      }
      if (diff === null) return;
      if (lines !== undefined && !lines.test(this.message(row))) return;
      if (oneWindow) {
        diff[0] += 1;
        diff[1] -= 1;
      } else {
        addLine(diff, time.at(row), stepNs, rangeNs, steps);
      }
    });
  }

  /**
   * forEachTagSet scans the rows once, deciding each (stream, level, attributes) group the
   * first time it appears; the per-row work is a typed-array read and a numeric map lookup.
   * Groups that render to the same tag set are visited once.
   */
  forEachTagSet(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, visit: TagSetVisitor): void {
    const compiled = compileMatchers(matchers);
    const seen = new Set<number>();
    const visited = new Set<string>();
    this.scan(compiled, minNs, maxNs, (row, id) => {
      if (seen.has(id)) return true;
      seen.add(id);
      const tags = this.groupTags(row);
      if (!matchesAll(tags, compiled)) return true;
      const key = labelsKey(tags);
      if (visited.has(key)) return true;
      visited.add(key);
      return visit(tags) !== false;
    });
  }

  /**
   * snapshot answers the head as worker tasks read it: its rows packed into shared memory,
   * the same snapshot for every task until the next append, which repacks only the open tail.
   */
  snapshot(): LogHeadSnapshot {
    return this.snapshots.snapshot(this.rowCount, () => this.headRows());
  }

  /**
   * cutInput is the head as a worker encodes it into a segment (see logCutColumns): its
   * columns copied into buffers of their own, messages as one run of UTF-8, so that posting
   * them moves them to the worker, and their memory goes when the worker is done with it
   * rather than when this thread next collects garbage (a shared snapshot would stay here
   * until then, a hundred MiB for a million lines). Read once the head takes no more appends.
   */
  cutInput(): LogCutInput {
    const tail = this.tail;
    const sealed = this.snapshots.sealedChunks;
    const sealedRows = this.snapshots.sealedRows;
    const rows = this.rowCount;
    const lineEnds = new Uint32Array(rows);
    let bytes = 0;
    for (const chunk of sealed) bytes += chunk.text.length;
    for (const m of tail) bytes += Buffer.byteLength(m, 'utf8');
    const text = new Uint8Array(bytes);
    const out = Buffer.from(text.buffer);
    let end = 0;
    let row = 0;
    // Sealed rows are already UTF-8 in their chunks: their bytes are copied as they are.
    for (const chunk of sealed) {
      text.set(chunk.text, end);
      const offsets = chunk.lineOffsets;
      for (let i = 1; i <= chunk.rows; i++) lineEnds[row++] = end + offsets[i];
      end += chunk.text.length;
    }
    for (let from = 0; from < tail.length; from += CUT_BATCH_ROWS) {
      const to = Math.min(tail.length, from + CUT_BATCH_ROWS);
      const batch = tail.slice(from, to).join('');
      if (Buffer.byteLength(batch, 'utf8') === batch.length) {
        // ASCII (a byte per character, the common case): the batch in one native call, as
        // a string small enough to die young.
        out.write(batch, end, 'latin1');
        for (let i = from; i < to; i++) lineEnds[sealedRows + i] = end += tail[i].length;
      } else {
        // Other text message by message: joining could pair two halves of a surrogate.
        for (let i = from; i < to; i++) lineEnds[sealedRows + i] = end += out.write(tail[i], end, 'utf8');
      }
    }
    return {
      timestampsNs: this.timestamps.view().slice(),
      lineEnds,
      text,
      streamIds: this.streamIds.view().slice(),
      levelIds: this.levelIds.view().slice(),
      attributeIds: this.attributeIds.view().slice(),
      streamTags: this.streamList.map((s) => s.tags),
      levels: this.levels.list(),
      attributes: this.attributes.list(),
    };
  }

  /** snapshotStats says how much shared memory the snapshots hold and how many chunks were ever packed. */
  get snapshotStats(): { packedBytes: number; chunksPacked: number } {
    return { packedBytes: this.snapshots.packedBytes, chunksPacked: this.snapshots.chunksPacked };
  }

  private headRows(): HeadRows {
    const sids = this.streamIds.view();
    const levelIds = this.levelIds.view();
    const attributeIds = this.attributeIds.view();
    const streams = this.streamList.length;
    const levels = this.levels.size;
    return {
      timestampsNs: this.timestamps.view(),
      groupIds: (row) => (attributeIds[row] * levels + levelIds[row]) * streams + sids[row],
      tagsOf: (row) => this.groupTags(row),
      message: (row) => this.message(row),
    };
  }

  /** estimatedBytes approximates the head's memory, to decide when it is worth cutting into a segment. */
  get estimatedBytes(): number {
    return this.bytes + this.rowCount * ROW_OVERHEAD_BYTES;
  }

  /**
   * columns exposes the head's rows as columns, in arrival order, for writing a segment. The
   * typed arrays are the head's own: callers read them only once the head takes no more
   * appends. Messages of sealed rows are decoded from their chunks.
   */
  columns(): LogColumns {
    const levelIds = this.levelIds.view();
    const attributeIds = this.attributeIds.view();
    return {
      timestampsNs: this.timestamps.view(),
      streams: this.streamIds.view(),
      streamTags: this.streamList.map((s) => s.tags),
      levels: Array.from(levelIds, (id) => this.levels.value(id)),
      messages: Array.from({ length: this.rowCount }, (_, row) => this.message(row)),
      attributes: Array.from(attributeIds, (id) => this.attributes.value(id)),
    };
  }
}

/** Bucket collects the rows of one full tag set during a select. */
interface Bucket {
  tags: Labels;
  rows: GrowableUint32;
}

/**
 * APPROX_MARGIN_NS is how far inside a bound a float timestamp must be to skip the exact
 * check: doubles near 2^61 ns are exact to 256 ns, so a microsecond is a safe margin.
 */
const APPROX_MARGIN_NS = 1_000;

/** isTimeOrdered says whether the rows' timestamps never decrease (the usual case: lines arrive in order); `words` are ts' int64Words. */
function isTimeOrdered(ts: BigInt64Array, words: Int32Array | undefined, rows: Uint32Array): boolean {
  if (words !== undefined) {
    for (let j = 1; j < rows.length; j++) if (wordsLess(words, rows[j], words, rows[j - 1])) return false;
    return true;
  }
  for (let j = 1; j < rows.length; j++) if (ts[rows[j]] < ts[rows[j - 1]]) return false;
  return true;
}

/** Interner gives each distinct string a small id, and back. */
class Interner {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }

  value(id: number): string {
    return this.values[id];
  }

  /** list is every value, indexed by id (a copy). */
  list(): string[] {
    return this.values.slice();
  }

  get size(): number {
    return this.values.length;
  }
}

/** CUT_BATCH_ROWS is how many messages cutInput encodes in one call. */
const CUT_BATCH_ROWS = 512;

/** ROW_OVERHEAD_BYTES is the per-line memory beyond the message text: timestamp, ids and array slots. */
const ROW_OVERHEAD_BYTES = 48;

/**
 * LogCutInput is a frozen log head as cutInput gives it: rows in arrival order, each row's
 * message as text[lineEnds[i-1], lineEnds[i]), its stream, level and attributes as ids into
 * the tables beside them.
 */
export interface LogCutInput {
  timestampsNs: BigInt64Array;
  lineEnds: Uint32Array;
  text: Uint8Array;
  streamIds: Uint32Array;
  levelIds: Uint32Array;
  attributeIds: Uint32Array;
  streamTags: Labels[];
  levels: string[];
  attributes: string[];
}

/**
 * logCutColumns rebuilds a head's columns from its cut input, on whichever thread encodes the
 * segment: the same columns `columns()` gives (a message with a lone surrogate comes back with
 * U+FFFD, which is what writing it as UTF-8 gives anyway), so the segment is byte for byte the
 * same.
 */
export function logCutColumns(input: LogCutInput): LogColumns {
  const rows = input.streamIds.length;
  if (input.lineEnds.length !== rows || input.timestampsNs.length !== rows) throw new Error('log cut input columns differ in length');
  const text = Buffer.from(input.text.buffer, input.text.byteOffset, input.text.byteLength);
  const messages = new Array<string>(rows);
  let start = 0;
  for (let i = 0; i < rows; i++) {
    const end = input.lineEnds[i];
    messages[i] = text.toString('utf8', start, end);
    start = end;
  }
  return {
    timestampsNs: input.timestampsNs,
    streams: input.streamIds,
    streamTags: input.streamTags,
    levels: Array.from(input.levelIds, (id) => input.levels[id]),
    messages,
    attributes: Array.from(input.attributeIds, (id) => input.attributes[id]),
  };
}

/**
 * LogColumns is a batch of log rows as parallel columns: the form segments are written from.
 * `streams[i]` indexes `streamTags`; `attributes[i]` is the canonical JSON of the line's
 * non-indexed tags.
 */
export interface LogColumns {
  timestampsNs: BigInt64Array;
  streams: Uint32Array;
  streamTags: readonly Labels[];
  levels: readonly string[];
  messages: readonly string[];
  attributes: readonly string[];
}

/**
 * composeTags builds a line's full tag set from its stream tags, level and attribute JSON; the
 * level column wins over an attribute of the same name. Attributes keep their empty values
 * (stream tags never hold one). Shared by the head and segments, so a line shows the same tags
 * wherever it is stored.
 */
export function composeTags(streamTags: Labels, level: string, attributes: string): Labels {
  const all: Record<string, string> = { ...streamTags, ...(JSON.parse(attributes) as Record<string, string>) };
  if (level !== '') all.level = level;
  return sortKeepingEmpty(all);
}
