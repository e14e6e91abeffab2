import { lowerBound, upperBound } from './bounds.js';
import { ArrowSection, Utf8Reader, dictionaryUtf8Data, int64Data, tableToFileBytes, uint32Data, utf8Data } from './arrowColumns.js';
import { labelsKey, type Labels } from './labels.js';
import { composeTags, lazyLogStream, type LogColumns, type LogProjection, type LogStreamData } from './logHead.js';
import { emptyAsciiLine, type AsciiLineVisitor, type LineVisitor } from './logLineScan.js';
import { matchesAll, type CompiledMatcher } from './matchers.js';
import { MessageBlocks, encodeMessages } from './messageBlocks.js';
import { RowMask, alignedRange, scanGroup, type LineMatch, type LineMatchOf, type RowSearch, type ScanGroup } from './lineMatch.js';
import { ABORT_CHECK_ROWS, OffsetReader, addLine, allInFirstWindow, firstStep, lastStep, type CountWindows, type OpenCounts } from './logCounts.js';
import { SegmentFormatError, encodeSegmentFile, readSegmentFile, type ChecksumPolicy } from './segmentFormat.js';

/**
 * A log segment holds two Arrow tables:
 *
 * - streams: one row per stream: `tags` (canonical JSON of the indexed tags); the schema's
 *   metadata lists which tags were indexed when the segment was written.
 * - rows, sorted by time (arrival order breaking ties): `ts` (Int64 ns), `stream` (Uint32, a
 *   stream row), `level` and `attributes` (dictionary-encoded strings; attributes are the
 *   canonical JSON of the line's other tags, as the head keeps them), `message` (Utf8).
 *
 * Sorting by time lets a query find its window with two binary searches; the dictionaries keep
 * repeated levels and attribute sets to one copy each.
 *
 * That is format version 1. Version 2 (written now) compresses the messages: the row table has
 * `messageEnd` instead of `message`, and two more sections hold the compressed blocks
 * (messageBlocks.ts): a block table (`rowEnd`, `compressedEnd`) and the deflated bytes.
 */

/** LOG_SEGMENT_VERSION is the format version new log segments are written in. */
export const LOG_SEGMENT_VERSION = 2;

/** INDEXED_TAGS_KEY is the schema metadata entry naming the tags the segment's streams were formed from. */
const INDEXED_TAGS_KEY = 'sluice.indexed_tags';
/**
 * MAX_TAG_VALUES bounds the value list the catalog keeps per indexed tag; a tag with more
 * distinct values (pod names on a big cluster) is recorded as unknown and not used to prune.
 */
export const MAX_TAG_VALUES = 256;

/** EncodedLogSegment is a finished segment file and the facts the catalog keeps about it. */
export interface EncodedLogSegment {
  bytes: Uint8Array;
  formatVersion: number;
  crc: number;
  rows: number;
  streamCount: number;
  minNs: bigint;
  maxNs: bigint;
  /** tagValues lists, per indexed tag, its values in the segment ('' when a stream lacks it), or null when there are too many. */
  tagValues: Record<string, string[] | null>;
}

/** timeOrder returns row indices sorted by time, ties kept in input order; undefined when already sorted. */
function timeOrder(ts: BigInt64Array): Uint32Array | undefined {
  let sorted = true;
  for (let i = 1; i < ts.length; i++) {
    if (ts[i] < ts[i - 1]) {
      sorted = false;
      break;
    }
  }
  if (sorted) return undefined;
  const order = Array.from({ length: ts.length }, (_, i) => i);
  order.sort((a, b) => (ts[a] < ts[b] ? -1 : ts[a] > ts[b] ? 1 : a - b));
  return Uint32Array.from(order);
}

/** dictionaryOf assigns each distinct string an index, in first-seen order. */
function dictionaryOf(values: readonly string[], order: Uint32Array | undefined): { indices: Int32Array; dictionary: string[] } {
  const ids = new Map<string, number>();
  const dictionary: string[] = [];
  const indices = new Int32Array(values.length);
  for (let j = 0; j < values.length; j++) {
    const value = values[order ? order[j] : j];
    let id = ids.get(value);
    if (id === undefined) {
      id = dictionary.length;
      ids.set(value, id);
      dictionary.push(value);
    }
    indices[j] = id;
  }
  return { indices, dictionary };
}

/**
 * encodeLogSegment writes rows (in any order) into a segment, keeping only the streams they
 * use. `indexedTags` are the tags streams were formed from: recorded in the file, and their
 * values summarised for the catalog. Returns undefined when there are no rows. `version` 1 is
 * kept so tests and benchmarks can write the old layout and compare.
 */
export function encodeLogSegment(rows: LogColumns, indexedTags: readonly string[], version: 1 | 2 = LOG_SEGMENT_VERSION): EncodedLogSegment | undefined {
  const n = rows.timestampsNs.length;
  if (n === 0) return undefined;
  const order = timeOrder(rows.timestampsNs);
  const at = (j: number): number => (order ? order[j] : j);
  const ts = new BigInt64Array(n);
  const streamRemap = new Int32Array(rows.streamTags.length).fill(-1);
  const usedStreams: Labels[] = [];
  const streams = new Uint32Array(n);
  const messages = new Array<string>(n);
  for (let j = 0; j < n; j++) {
    const i = at(j);
    ts[j] = rows.timestampsNs[i];
    const sid = rows.streams[i];
    if (streamRemap[sid] < 0) {
      streamRemap[sid] = usedStreams.length;
      usedStreams.push(rows.streamTags[sid]);
    }
    streams[j] = streamRemap[sid];
    messages[j] = rows.messages[i];
  }
  const levels = dictionaryOf(rows.levels, order);
  const attributes = dictionaryOf(rows.attributes, order);
  const streamTable = tableToFileBytes([{ name: 'tags', data: utf8Data(usedStreams.map((t) => JSON.stringify(t))) }], new Map([[INDEXED_TAGS_KEY, JSON.stringify(indexedTags)]]));
  const columns = [
    { name: 'ts', data: int64Data(ts) },
    { name: 'stream', data: uint32Data(streams) },
    { name: 'level', data: dictionaryUtf8Data(levels.indices, levels.dictionary, 0) },
    { name: 'attributes', data: dictionaryUtf8Data(attributes.indices, attributes.dictionary, 1) },
  ];
  let sections: Uint8Array[];
  // Version 1 keeps its original column order, so it writes the very bytes it always did.
  if (version === 1) sections = [streamTable, tableToFileBytes([...columns.slice(0, 3), { name: 'message', data: utf8Data(messages) }, columns[3]])];
  else {
    const m = encodeMessages(messages);
    const blockTable = tableToFileBytes([
      { name: 'rowEnd', data: uint32Data(m.rowEnd) },
      { name: 'compressedEnd', data: uint32Data(m.compressedEnd) },
    ]);
    sections = [streamTable, tableToFileBytes([...columns, { name: 'messageEnd', data: uint32Data(m.messageEnd) }]), blockTable, m.compressed];
  }
  const { bytes, crc } = encodeSegmentFile(sections, version);
  return { bytes, formatVersion: version, crc, rows: n, streamCount: usedStreams.length, minNs: ts[0], maxNs: ts[n - 1], tagValues: tagValuesOf(usedStreams, indexedTags) };
}

function tagValuesOf(streams: readonly Labels[], indexedTags: readonly string[]): Record<string, string[] | null> {
  const out: Record<string, string[] | null> = {};
  for (const tag of indexedTags) {
    const values = new Set<string>();
    for (const s of streams) {
      values.add(s[tag] ?? '');
      if (values.size > MAX_TAG_VALUES) break;
    }
    out[tag] = values.size > MAX_TAG_VALUES ? null : [...values].sort();
  }
  return out;
}

/**
 * DENSE_GROUP_SLOTS bounds the table of group slots a count allocates per segment (streams ×
 * levels × attribute sets, 16 bytes each with the run counts); beyond it, groups are found
 * through a map.
 */
const DENSE_GROUP_SLOTS = 1 << 16;

/** SKIPPED is the slot of a group whose rows a scan or count does not want; STOPPED says a scan's `open` ended it. */
const SKIPPED = -1;
const STOPPED = -2;

/** STOP is what a scan callback returns to end the scan early. */
const STOP: unique symbol = Symbol('stop');



/**
 * LogSegmentReader answers log selections from one decoded segment. Stream tags and the two
 * dictionaries are decoded when the segment is opened; messages are decoded only for the rows
 * a selection returns.
 */
export class LogSegmentReader {

  private constructor(
    readonly streamTags: Labels[],
    readonly indexedTags: ReadonlySet<string>,
    private readonly ts: BigInt64Array,
    private readonly streams: Uint32Array,
    private readonly levelIds: Int32Array,
    private readonly levels: string[],
    private readonly attributeIds: Int32Array,
    private readonly attributes: string[],
    /** messageReader reads one row's message: from the file's bytes (version 1) or inflated blocks (version 2). */
    private readonly messageReader: Utf8Reader | MessageBlocks,
    /** bytes is the whole file, which the reader's arrays are views into; shareable with worker threads. */
    readonly bytes: Uint8Array,
  ) {}

  /** decode checks the file (checksum, version, layout) and builds the reader without copying columns. */
  static decode(bytes: Uint8Array, expectedCrc?: number, checksum: ChecksumPolicy = 'verify'): LogSegmentReader {
    const { version, sections } = readSegmentFile(bytes, expectedCrc, checksum);
    const expected = version === 1 ? 2 : 4;
    if (sections.length !== expected) throw new SegmentFormatError(`log segment has ${sections.length} sections, expected ${expected}`);
    const streamTable = ArrowSection.parse(sections[0], 'stream table');
    const rows = ArrowSection.parse(sections[1], 'row table');
    const streamTags = streamTable.strings('tags').map((json) => JSON.parse(json) as Labels);
    const indexed = JSON.parse(streamTable.metadata.get(INDEXED_TAGS_KEY) ?? '[]') as string[];
    const streams = rows.uint32('stream');
    for (let i = 0; i < streams.length; i++) {
      if (streams[i] >= streamTags.length) throw new SegmentFormatError(`row ${i} refers to a missing stream`);
    }
    const level = rows.dictionary('level');
    const attributes = rows.dictionary('attributes');
    let messages: Utf8Reader | MessageBlocks;
    if (version === 1) messages = new Utf8Reader(rows.utf8('message'));
    else {
      const blocks = ArrowSection.parse(sections[2], 'message block table');
      messages = new MessageBlocks(rows.uint32('messageEnd'), blocks.uint32('rowEnd'), blocks.uint32('compressedEnd'), sections[3]);
    }
    return new LogSegmentReader(streamTags, new Set(indexed), rows.int64('ts'), streams, level.indices, level.values, attributes.indices, attributes.values, messages, bytes);
  }

  /** byteSize is what the reader keeps alive (the file's bytes and the message blocks inflated so far), for cache accounting. */
  get byteSize(): number {
    return this.bytes.byteLength + (this.messageReader instanceof MessageBlocks ? this.messageReader.decodedBytes : 0);
  }

  get rowCount(): number {
    return this.ts.length;
  }

  /**
   * groupDecider decides a (stream, level, attributes) group on its first row (`row` of stream
   * `sid`), for a scan or a count: SKIPPED when the stream's tags or the group's full tags fail
   * the matchers or `open` turns it down (undefined), STOPPED when `open` ends the walk, else its
   * place in `opened` plus one. Each stream's own tags are matched once.
   */
  private groupDecider<G>(compiled: readonly CompiledMatcher[], open: (tags: Labels) => G | undefined | typeof STOP, opened: G[]): (row: number, sid: number) => number {
    const streamMatchers = compiled.filter((m) => this.indexedTags.has(m.name));
    // 0: stream not yet decided, 1: its tags match, 2: they do not.
    const streamState = new Uint8Array(this.streamTags.length);
    return (row, sid) => {
      let state = streamState[sid];
      if (state === 0) streamState[sid] = state = matchesAll(this.streamTags[sid], streamMatchers) ? 1 : 2;
      if (state === 2) return SKIPPED;
      const tags = composeTags(this.streamTags[sid], this.levels[this.levelIds[row]], this.attributes[this.attributeIds[row]]);
      if (!matchesAll(tags, compiled)) return SKIPPED;
      const group = open(tags);
      if (group === STOP) return STOPPED;
      return group === undefined ? SKIPPED : opened.push(group);
    };
  }

  /**
   * scan walks the rows of [minNs, maxNs] once, deciding each stream and each (stream, level,
   * attributes) group on first sight (groupDecider): `openGroup` gets a matching group's full
   * tags and returns the bucket its rows go to (undefined to skip them, STOP to end the scan),
   * and `onRow` receives each row of an opened group with its bucket. Rows arrive in time
   * order. Returns false when stopped. Groups are found per row in a table of slots
   * (DENSE_GROUP_SLOTS; a map beyond it), as a count finds them: a map lookup per row was most
   * of a scan that skips most rows.
   */
  private scan<G>(compiled: readonly CompiledMatcher[], minNs: bigint, maxNs: bigint, openGroup: (tags: Labels) => G | undefined | typeof STOP, onRow?: (row: number, group: G) => void): boolean {
    const from = lowerBound(this.ts, minNs);
    const end = upperBound(this.ts, maxNs);
    if (end <= from) return true;
    const levelCount = this.levels.length;
    const attributeCount = this.attributes.length;
    const groupCount = this.streamTags.length * levelCount * attributeCount;
    // Slot per group: 0 undecided, SKIPPED, or k + 1 for opened[k].
    const dense = groupCount <= DENSE_GROUP_SLOTS ? new Int32Array(groupCount) : undefined;
    const sparse = dense === undefined ? new Map<number, number>() : undefined;
    const opened: G[] = [];
    const decide = this.groupDecider(compiled, openGroup, opened);
    const streams = this.streams;
    const levelIds = this.levelIds;
    const attributeIds = this.attributeIds;
    for (let row = from; row < end; row++) {
      const sid = streams[row];
      const key = (sid * levelCount + levelIds[row]) * attributeCount + attributeIds[row];
      let slot = dense !== undefined ? dense[key] : (sparse!.get(key) ?? 0);
      if (slot === 0) {
        slot = decide(row, sid);
        if (slot === STOPPED) return false;
        if (dense !== undefined) dense[key] = slot;
        else sparse!.set(key, slot);
      }
      if (slot !== SKIPPED && onRow) onRow(row, opened[slot - 1]);
    }
    return true;
  }

  /**
   * select returns matching lines in [minNs, maxNs] grouped by full tag set, oldest first, as
   * the head does; without lines in the projection, no message is decoded.
   */
  select(compiled: readonly CompiledMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[] {
    const lines = projection?.lines !== false;
    // Groups that render to the same tag set (a `level` attribute shadowed by the level column) share a bucket.
    const buckets = new Map<string, { tags: Labels; rows: number[] }>();
    this.scan(
      compiled,
      minNs,
      maxNs,
      (tags) => {
        const key = labelsKey(tags);
        let bucket = buckets.get(key);
        if (bucket === undefined) buckets.set(key, (bucket = { tags, rows: [] }));
        return bucket;
      },
      (row, bucket) => bucket?.rows.push(row),
    );
    const out: LogStreamData[] = [];
    const reader = this.messageReader;
    for (const { tags, rows } of buckets.values()) {
      const timestampsNs = new BigInt64Array(rows.length);
      for (let j = 0; j < rows.length; j++) timestampsNs[j] = this.ts[rows[j]];
      out.push(lazyLogStream(tags, timestampsNs, (j) => (lines ? reader.get(rows[j]) : '')));
    }
    return out;
  }

  /**
   * scanLines is LogLineScanner.scanLines over this segment (matchers compiled): the matching
   * rows of [minNs, maxNs] in the segment's order, each (stream, level, attributes) group
   * opened on first sight, as `select` groups them. A group's literal filters (`lineMatchOf`)
   * search one message block at a time, when the scan first reaches a row of it.
   */
  scanLines<G>(
    compiled: readonly CompiledMatcher[],
    minNs: bigint,
    maxNs: bigint,
    open: (tags: Labels) => G | undefined,
    visit: LineVisitor<G>,
    visitAscii?: AsciiLineVisitor<G>,
    lineMatchOf?: LineMatchOf<G>,
  ): void {
    const reader = this.messageReader;
    const ts = this.ts;
    const blocks = visitAscii !== undefined && reader instanceof MessageBlocks ? reader : undefined;
    const line = emptyAsciiLine();
    const rows = this.rowCount;
    const search: RowSearch = {
      source: this,
      rangeStart: (row) => (reader instanceof MessageBlocks ? reader.blockStart(row) : alignedRange(row, rows, false)),
      rangeEnd: (row) => (reader instanceof MessageBlocks ? reader.blockEnd(row) : alignedRange(row, rows, true)),
      markContaining: (from, end, needle, hits) => reader.markContaining(from, end, needle, hits),
    };
    this.scan<ScanGroup<G>>(
      compiled,
      minNs,
      maxNs,
      (tags) => {
        const group = open(tags);
        return group === undefined ? undefined : scanGroup(group, lineMatchOf);
      },
      (row, scanned) => {
        if (scanned.cursor !== undefined && !scanned.cursor.passesRow(row, search)) return;
        if (blocks !== undefined && blocks.asciiLine(row, line)) visitAscii!(scanned.group, line, ts, row);
        else visit(scanned.group, reader.get(row), ts, row);
      },
    );
  }

  /**
   * countLines is LogCountReader.countLines over this segment (see logCounts.ts): one pass
   * over the rows of [minNs, maxNs] that reads the stream, level and attribute ids and the
   * timestamp of each row, and adds it to its group's difference array. Each (stream, level,
   * attributes) group is decided once. When the three dictionaries are small enough, rows are
   * counted per group in runs that share their steps (countInRuns); else each row finds its
   * group through a map and adds itself. With `lines`, only rows whose message passes its
   * literal filters count: they are found by searching the messages' bytes (lineMatch.ts).
   */
  countLines(
    compiled: readonly CompiledMatcher[],
    minNs: bigint,
    maxNs: bigint,
    windows: CountWindows,
    open: OpenCounts,
    checkAbort?: () => void,
    lines?: LineMatch,
  ): void {
    const from = lowerBound(this.ts, minNs);
    const end = upperBound(this.ts, maxNs);
    if (end <= from) return;
    const mask = lines === undefined ? undefined : this.passingRows(from, end, lines);
    const levelCount = this.levels.length;
    const attributeCount = this.attributes.length;
    const groupCount = this.streamTags.length * levelCount * attributeCount;
    // Slot per group: 0 undecided, SKIPPED, or k + 1 for diffs[k].
    const dense = groupCount <= DENSE_GROUP_SLOTS ? new Int32Array(groupCount) : undefined;
    const diffs: Float64Array[] = [];
    const decide = this.groupDecider(compiled, open, diffs);
    const streams = this.streams;
    const levelIds = this.levelIds;
    const attributeIds = this.attributeIds;
    const oneWindow = allInFirstWindow(windows, minNs, maxNs);
    if (dense !== undefined) {
      this.countInRuns(from, end, levelCount, attributeCount, dense, decide, diffs, oneWindow ? undefined : windows, mask, checkAbort);
      return;
    }
    const sparse = new Map<number, number>();
    const time = new OffsetReader(this.ts, windows.baseNs);
    const { stepNs, rangeNs, steps } = windows;
    for (let chunk = from; chunk < end; chunk += ABORT_CHECK_ROWS) {
      if (chunk > from) checkAbort?.();
      const chunkEnd = Math.min(end, chunk + ABORT_CHECK_ROWS);
      for (let row = chunk; row < chunkEnd; row++) {
        if (mask !== undefined && mask[row - from] === 0) continue;
        const sid = streams[row];
        const key = (sid * levelCount + levelIds[row]) * attributeCount + attributeIds[row];
        let slot = sparse.get(key);
        if (slot === undefined) sparse.set(key, (slot = decide(row, sid)));
        if (slot < 0) continue;
        const diff = diffs[slot - 1];
        if (oneWindow) {
          diff[0] += 1;
          diff[1] -= 1;
        } else {
          addLine(diff, time.at(row), stepNs, rangeNs, steps);
        }
      }
    }
  }

  /**
   * countInRuns is countLines when the groups fit the dense table of slots. Rows are in time
   * order, so they fall into runs whose lines all count in the same steps (the steps change only
   * when a line crosses a step or window edge): the loop counts rows per group within a run,
   * and the run's counts are added to the groups' arrays when it ends. Offsets near a run's end
   * take the per-line arithmetic, so float rounding at the edges answers as addLine does.
   * Groups are decided in the order of their first row, as a row-by-row loop decides them.
   */
  private countInRuns(
    from: number,
    end: number,
    levelCount: number,
    attributeCount: number,
    slots: Int32Array,
    decide: (row: number, sid: number) => number,
    diffs: readonly Float64Array[],
    windows: CountWindows | undefined,
    mask: Uint8Array | undefined,
    checkAbort?: () => void,
  ): void {
    const streams = this.streams;
    const levelIds = this.levelIds;
    const attributeIds = this.attributeIds;
    const counts = new Float64Array(slots.length);
    const firstRow = new Int32Array(slots.length);
    const touched = new Int32Array(slots.length);
    let touchedCount = 0;
    // The steps of the current run; with no windows, one step holds every row.
    let lo = 0;
    let hi = 0;
    const flush = (): void => {
      for (let i = 0; i < touchedCount; i++) {
        const key = touched[i];
        const count = counts[key];
        counts[key] = 0;
        let slot = slots[key];
        if (slot === 0) slots[key] = slot = decide(firstRow[key], streams[firstRow[key]]);
        if (slot < 0 || lo > hi) continue;
        const diff = diffs[slot - 1];
        diff[lo] += count;
        diff[hi + 1] -= count;
      }
      touchedCount = 0;
    };
    const time = windows === undefined ? undefined : new OffsetReader(this.ts, windows.baseNs);
    const stepNs = windows?.stepNs ?? 0;
    const rangeNs = windows?.rangeNs ?? 0;
    const lastIndex = (windows?.steps ?? 1) - 1;
    // Rows whose offset is at most runSafe belong to the current run.
    let runSafe = -Infinity;
    for (let chunk = from; chunk < end; chunk += ABORT_CHECK_ROWS) {
      if (chunk > from) checkAbort?.();
      const chunkEnd = Math.min(end, chunk + ABORT_CHECK_ROWS);
      for (let row = chunk; row < chunkEnd; row++) {
        // A row the line filters drop counts nowhere; the next counted row finds its own run.
        if (mask !== undefined && mask[row - from] === 0) continue;
        if (time !== undefined) {
          const t = time.at(row);
          if (t > runSafe) {
            const rawLo = firstStep(t, stepNs, rangeNs);
            const rawHi = lastStep(t, stepNs);
            const nextLo = rawLo < 0 ? 0 : rawLo;
            const nextHi = rawHi > lastIndex ? lastIndex : rawHi;
            if (nextLo !== lo || nextHi !== hi) {
              flush();
              lo = nextLo;
              hi = nextHi;
            }
            // The run lasts while t ≤ (rawHi + 1)·step and t ≤ rawLo·step + range; a margin
            // well above float rounding leaves the rows at the very edge to the check above.
            const edge = Math.min((rawHi + 1) * stepNs, rawLo * stepNs + rangeNs);
            runSafe = edge - (Math.abs(edge) * 1e-9 + 16);
          }
        }
        const key = (streams[row] * levelCount + levelIds[row]) * attributeCount + attributeIds[row];
        if (counts[key]++ === 0) {
          touched[touchedCount++] = key;
          firstRow[key] = row;
        }
      }
    }
    flush();
  }

  /** passingRows is the mask of the rows of [from, end) whose message passes `lines`. */
  private passingRows(from: number, end: number, lines: LineMatch): Uint8Array {
    const mask = new RowMask(end - from);
    mask.apply(lines, (needle, hits) => this.messageReader.markContaining(from, end, needle, hits));
    return mask.passes;
  }

  /** forEachTagSet visits each distinct full tag set with lines in the window, decoding no messages. */
  forEachTagSet(compiled: readonly CompiledMatcher[], minNs: bigint, maxNs: bigint, visit: (tags: Labels) => boolean | void): boolean {
    const seen = new Set<string>();
    return this.scan(compiled, minNs, maxNs, (tags) => {
      const key = labelsKey(tags);
      if (seen.has(key)) return true;
      seen.add(key);
      return visit(tags) === false ? STOP : true;
    });
  }

  /** columns decodes every row back into columns (messages included), for compaction. */
  columns(): LogColumns {
    const n = this.ts.length;
    const levels = new Array<string>(n);
    const attributes = new Array<string>(n);
    const messages = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      levels[i] = this.levels[this.levelIds[i]];
      attributes[i] = this.attributes[this.attributeIds[i]];
      messages[i] = this.messageReader.get(i);
    }
    return { timestampsNs: this.ts, streams: this.streams, streamTags: this.streamTags, levels, messages, attributes };
  }
}
