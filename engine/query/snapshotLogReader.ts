import { lowerBound, upperBound } from '../storage/bounds.js';
import { GrowableUint32 } from '../storage/growable.js';
import { copyWords, int64Words, wordsLess } from '../storage/int64Words.js';
import { labelsKey, type Labels } from '../storage/labels.js';
import { chunkMessage, chunkRowsContaining, chunkText, unpackGroupTags, type SharedLogChunk } from '../storage/logChunk.js';
import { RowMask, alignedRange, scanGroup, type LineMatch, type LineMatchOf, type RowSearch, type ScanGroup } from '../storage/lineMatch.js';
import { lazyLogStream, type LogProjection, type LogStreamData, type TagSetVisitor } from '../storage/logHead.js';
import type { LogHeadSnapshot } from '../storage/logHeadSnapshots.js';
import { emptyAsciiLine, type AsciiLineVisitor, type LineVisitor } from '../storage/logLineScan.js';
import { OffsetReader, addLine, allInFirstWindow, type CountWindows, type OpenCounts } from '../storage/logCounts.js';
import { compileMatchers, matchesAll, type CompiledMatcher, type LabelMatcher } from '../storage/matchers.js';

/** ChunkGroups is what a worker decodes once from a chunk: its tag sets and their keys. */
interface ChunkGroups {
  tags: Labels[];
  keys: string[];
}

/**
 * DECODED_CHUNKS_KEPT bounds the chunks whose tag sets a worker keeps between tasks. Only the
 * decoded tags are kept, never the chunk itself, so a snapshot's shared memory is released
 * once the tasks that were given it are done.
 */
const DECODED_CHUNKS_KEPT = 512;
const decodedGroups = new Map<string, ChunkGroups>();

function groupsOf(chunk: SharedLogChunk): ChunkGroups {
  let groups = decodedGroups.get(chunk.id);
  if (groups) {
    // Refreshed as most recently used.
    decodedGroups.delete(chunk.id);
  } else {
    const tags = unpackGroupTags(chunk);
    groups = { tags, keys: tags.map(labelsKey) };
  }
  decodedGroups.set(chunk.id, groups);
  if (decodedGroups.size > DECODED_CHUNKS_KEPT) decodedGroups.delete(decodedGroups.keys().next().value!);
  return groups;
}

/**
 * WHOLE_DECODE_SHARE: a chunk is decoded whole once at least 1 / WHOLE_DECODE_SHARE of its rows
 * are selected (decoding a line alone costs about four times its share of a whole decode).
 */
const WHOLE_DECODE_SHARE = 4;

/** Bucket collects the rows of one tag set, as (chunk, row) pairs in arrival order. */
interface Bucket {
  tags: Labels;
  chunks: GrowableUint32;
  rows: GrowableUint32;
}

/**
 * SnapshotLogReader serves a worker's reads of one log head from the head's snapshot (see
 * logHeadSnapshots.ts), answering exactly as the live head did when the snapshot was taken:
 * lines grouped by full tag set, groups in order of first arrival, lines oldest first with
 * arrival order breaking ties.
 */
export class SnapshotLogReader {
  constructor(private readonly head: LogHeadSnapshot) {}

  get rowCount(): number {
    let n = 0;
    for (const c of this.head.chunks) n += c.rows;
    return n;
  }

  /** snapshot is the snapshot read: sharing it again shares the same memory. */
  snapshot(): LogHeadSnapshot {
    return this.head;
  }

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[] {
    const lines = projection?.lines !== false;
    const compiled = compileMatchers(matchers);
    const buckets = new Map<string, Bucket>();
    const chunks = this.head.chunks;
    const selected = new Uint32Array(chunks.length);
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c];
      const { tags, keys } = groupsOf(chunk);
      const decided: Array<Bucket | null | undefined> = new Array(tags.length);
      this.scan(chunk, minNs, maxNs, (row, group) => {
        let bucket = decided[group];
        if (bucket === undefined) {
          bucket = null;
          if (this.wants(tags[group], compiled)) {
            bucket = buckets.get(keys[group]) ?? null;
            if (bucket === null) buckets.set(keys[group], (bucket = { tags: tags[group], chunks: new GrowableUint32(64), rows: new GrowableUint32(64) }));
          }
          decided[group] = bucket;
        }
        if (bucket !== null) {
          bucket.chunks.push(c);
          bucket.rows.push(row);
          selected[c]++;
        }
      });
    }
    const texts: Array<Buffer | undefined> = new Array(chunks.length);
    // A chunk of ASCII lines most of which are read is decoded once, its lines taken as
    // substrings: a quarter of the cost of decoding line by line, for what the whole text costs.
    const wholes: Array<string | undefined> = new Array(chunks.length);
    // Timestamps are compared and copied through their 32-bit words (int64Words.ts).
    const words = chunks.map((chunk) => int64Words(chunk.timestampsNs));
    const out: LogStreamData[] = [];
    for (const bucket of buckets.values()) {
      const cs = bucket.chunks.view();
      const rs = bucket.rows.view();
      const n = rs.length;
      const at = (j: number): bigint => chunks[cs[j]].timestampsNs[rs[j]];
      const before = (j: number, i: number): boolean => {
        const a = words[cs[j]];
        const b = words[cs[i]];
        return a !== undefined && b !== undefined ? wordsLess(a, rs[j], b, rs[i]) : at(j) < at(i);
      };
      let order: number[] | undefined;
      for (let j = 1; j < n; j++) {
        if (before(j, j - 1)) {
          // Pairs are in arrival order already, so a stable sort by time breaks ties by arrival.
          order = Array.from({ length: n }, (_, k) => k).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : a - b));
          break;
        }
      }
      const timestampsNs = new BigInt64Array(n);
      const outWords = int64Words(timestampsNs);
      for (let j = 0; j < n; j++) {
        const k = order === undefined ? j : order[j];
        const from = words[cs[k]];
        if (from !== undefined && outWords !== undefined) copyWords(from, rs[k], outWords, j);
        else timestampsNs[j] = at(k);
      }
      // Made when read (LogStreamData), in the order of the timestamps.
      const messageAt = (j: number): string => {
        if (!lines) return '';
        const k = order === undefined ? j : order[j];
        const c = cs[k];
        let whole = wholes[c];
        if (whole === undefined && texts[c] === undefined) {
          const text = (texts[c] = chunkText(chunks[c]));
          if (chunks[c].ascii === true && selected[c] * WHOLE_DECODE_SHARE >= chunks[c].rows) whole = wholes[c] = text.toString('latin1');
        }
        const offsets = chunks[c].lineOffsets;
        return whole !== undefined ? whole.substring(offsets[rs[k]], offsets[rs[k] + 1]) : chunkMessage(chunks[c], texts[c]!, rs[k]);
      };
      out.push(lazyLogStream(bucket.tags, timestampsNs, messageAt));
    }
    return out;
  }

  /**
   * scanLines is LogLineScanner.scanLines over the snapshot: chunk after chunk, each chunk's rows
   * in arrival order, so its message bytes are read as they lie. One tag set is one group
   * across chunks; its lines come in arrival order, which is time order but where lines arrived
   * late (a reader sorting by time gets ascending runs).
   */
  scanLines<G>(
    matchers: readonly LabelMatcher[],
    minNs: bigint,
    maxNs: bigint,
    open: (tags: Labels) => G | undefined,
    visit: LineVisitor<G>,
    visitAscii?: AsciiLineVisitor<G>,
    lineMatchOf?: LineMatchOf<G>,
  ): void {
    const compiled = compileMatchers(matchers);
    const line = emptyAsciiLine();
    const opened = new Map<string, ScanGroup<G> | null>();
    for (const chunk of this.head.chunks) {
      const { tags, keys } = groupsOf(chunk);
      // Per group: undefined undecided, null skipped, else its caller's group.
      const decided: Array<ScanGroup<G> | null | undefined> = new Array(tags.length);
      let text: Buffer | undefined;
      const encoding = chunk.ascii === true ? 'latin1' : 'utf8';
      const offsets = chunk.lineOffsets;
      const ts = chunk.timestampsNs;
      const search: RowSearch = {
        source: chunk,
        rangeStart: (row) => alignedRange(row, chunk.rows, false),
        rangeEnd: (row) => alignedRange(row, chunk.rows, true),
        markContaining: (from, end, needle, hits) => chunkRowsContaining(chunk, (text ??= chunkText(chunk)), from, end, needle, hits),
      };
      this.scan(chunk, minNs, maxNs, (row, group) => {
        let g = decided[group];
        if (g === undefined) {
          g = null;
          if (this.wants(tags[group], compiled)) {
            g = opened.get(keys[group]);
            if (g === undefined) {
              const caller = open(tags[group]);
              opened.set(keys[group], (g = caller === undefined ? null : scanGroup(caller, lineMatchOf)));
            }
          }
          decided[group] = g;
        }
        if (g === null) return;
        if (g.cursor !== undefined && !g.cursor.passesRow(row, search)) return;
        text ??= chunkText(chunk);
        if (visitAscii !== undefined && chunk.ascii === true) {
          line.bytes = text;
          line.start = offsets[row];
          line.end = offsets[row + 1];
          visitAscii(g.group, line, ts, row);
        } else {
          visit(g.group, text.toString(encoding, offsets[row], offsets[row + 1]), ts, row);
        }
      });
    }
  }

  forEachTagSet(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, visit: TagSetVisitor): void {
    const compiled = compileMatchers(matchers);
    const visited = new Set<string>();
    for (const chunk of this.head.chunks) {
      const { tags, keys } = groupsOf(chunk);
      const seen = new Uint8Array(tags.length);
      let stopped = false;
      this.scan(chunk, minNs, maxNs, (_row, group) => {
        if (seen[group] !== 0) return true;
        seen[group] = 1;
        if (visited.has(keys[group]) || !this.wants(tags[group], compiled)) return true;
        visited.add(keys[group]);
        if (visit(tags[group]) === false) stopped = true;
        return !stopped;
      });
      if (stopped) return;
    }
  }

  /**
   * countLines is LogCountReader.countLines over the snapshot: chunks carry a group id per
   * row, so each row costs a typed-array read, a slot lookup and its window arithmetic. With
   * `lines`, rows whose message fails its literal filters are left out, found by searching each
   * chunk's message bytes.
   */
  countLines(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, windows: CountWindows, open: OpenCounts, checkAbort?: () => void, lines?: LineMatch): void {
    const compiled = compileMatchers(matchers);
    const oneWindow = allInFirstWindow(windows, minNs, maxNs);
    const { stepNs, rangeNs, steps } = windows;
    for (const chunk of this.head.chunks) {
      if (chunk.rows === 0 || chunk.maxNs < minNs || chunk.minNs > maxNs) continue;
      checkAbort?.();
      const { tags } = groupsOf(chunk);
      // Per group: undefined undecided, null skipped, else its array.
      const decided: Array<Float64Array | null | undefined> = new Array(tags.length);
      const ts = chunk.timestampsNs;
      const groups = chunk.groups;
      const time = new OffsetReader(ts, windows.baseNs);
      const inOrder = chunk.inOrder;
      const from = inOrder ? lowerBound(ts, minNs) : 0;
      const end = inOrder ? upperBound(ts, maxNs) : chunk.rows;
      let mask: Uint8Array | undefined;
      if (lines !== undefined && end > from) {
        const rows = new RowMask(end - from);
        const text = chunkText(chunk);
        rows.apply(lines, (needle, hits) => chunkRowsContaining(chunk, text, from, end, needle, hits));
        mask = rows.passes;
      }
      for (let i = from; i < end; i++) {
        if (mask !== undefined && mask[i - from] === 0) continue;
        if (!inOrder) {
          const t = ts[i];
          if (t < minNs || t > maxNs) continue;
        }
        const group = groups[i];
        let diff = decided[group];
        if (diff === undefined) decided[group] = diff = this.wants(tags[group], compiled) ? (open(tags[group]) ?? null) : null;
        if (diff === null) continue;
        if (oneWindow) {
          diff[0] += 1;
          diff[1] -= 1;
        } else {
          addLine(diff, time.at(i), stepNs, rangeNs, steps);
        }
      }
    }
  }

  private wants(tags: Labels, compiled: readonly CompiledMatcher[]): boolean {
    return matchesAll(tags, compiled);
  }

  /** scan visits a chunk's rows in [minNs, maxNs] in arrival order; returning false stops it. */
  private scan(chunk: SharedLogChunk, minNs: bigint, maxNs: bigint, onRow: (row: number, group: number) => boolean | void): void {
    if (chunk.rows === 0 || chunk.maxNs < minNs || chunk.minNs > maxNs) return;
    const ts = chunk.timestampsNs;
    const groups = chunk.groups;
    if (chunk.inOrder) {
      const end = upperBound(ts, maxNs);
      for (let i = lowerBound(ts, minNs); i < end; i++) if (onRow(i, groups[i]) === false) return;
      return;
    }
    for (let i = 0; i < chunk.rows; i++) {
      const t = ts[i];
      if (t >= minNs && t <= maxNs && onRow(i, groups[i]) === false) return;
    }
  }
}
