import { createHash } from 'node:crypto';
import { lowerBound, upperBound } from './bounds.js';
import type { HeadExport } from './headWire.js';
import type { Labels } from './labels.js';
import { chunkMessage, chunkText, packLogChunk, unpackGroupTags, type HeadRows, type SharedLogChunk } from './logChunk.js';
import { compileMatchers, matchesAll, type LabelMatcher } from './matchers.js';
import { chunkHistograms, packMetricChunk, unpackChunkLabels, type SeriesRun, type SharedMetricChunk } from './metricChunk.js';

/**
 * The head filter narrows a head export to what a query can read: the series (metrics) or
 * streams (logs) its selectors can match, and the samples or lines of its time range. A series
 * or tag set is kept when it matches every matcher of at least one selector, as the readers
 * select it (SnapshotMetricReader, SnapshotLogReader); readers select by time too, so nothing
 * left out could have been read.
 *
 * A chunk whose series all match and whose time lies inside the range is sent as it is, and
 * one with no matching series or wholly outside the range is left out. Any other is repacked
 * with the matching series only, under an id derived from the chunk's and the selectors': a
 * sealed chunk never changes, so the same selectors give the same bytes, and a query process
 * that kept that repacked chunk from an earlier answer names it instead of receiving it again
 * (`known`). A chunk reaching across an edge of the range is also cut to the range, but only
 * when that leaves at most half of what the selectors keep: the cut chunk's content, so its
 * id, depends on the range, which moves with every refresh of a "last 5 minutes" panel, so a
 * chunk mostly inside the range is better sent whole once and named from then on. A chunk the
 * asker already holds (whole or narrowed to the same selectors) is named rather than cut.
 */

/** selectorsKey names a set of selectors independently of their order, for derived chunk ids. */
export function selectorsKey(selectors: readonly (readonly LabelMatcher[])[]): string {
  const canonical = selectors.map((s) => JSON.stringify(s.map((m) => [m.name, m.type, m.value]))).sort();
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}

/** HeadScope is what one request narrows an export to; an absent part narrows nothing. */
export interface HeadScope {
  selectors?: readonly (readonly LabelMatcher[])[];
  /** minMs and maxMs bound the samples and lines wanted, in milliseconds, both inclusive. */
  minMs?: number;
  maxMs?: number;
}

/** Chunk label sets are parsed once per chunk, not once per request: sealed chunks serve many. */
const metricLabels = new WeakMap<SharedMetricChunk, Labels[]>();
const logTags = new WeakMap<SharedLogChunk, Labels[]>();

function cached<C extends object>(cache: WeakMap<C, Labels[]>, chunk: C, unpack: (c: C) => Labels[]): Labels[] {
  let labels = cache.get(chunk);
  if (labels === undefined) cache.set(chunk, (labels = unpack(chunk)));
  return labels;
}

/** Kept is which series of a chunk the selectors keep: all of them, none, or some (by index). */
type Kept = 'all' | 'none' | number[];

function keptOf(sets: readonly Labels[], test: ((labels: Labels) => boolean) | undefined): Kept {
  if (test === undefined) return sets.length === 0 ? 'none' : 'all';
  const keep: number[] = [];
  for (let i = 0; i < sets.length; i++) if (test(sets[i])) keep.push(i);
  if (keep.length === 0) return 'none';
  return keep.length === sets.length ? 'all' : keep;
}

function indexes(kept: Exclude<Kept, 'none'>, count: number): number[] {
  return kept === 'all' ? Array.from({ length: count }, (_, i) => i) : kept;
}

/**
 * Narrowing is what one request means for the chunks: the selectors' test (none: every series),
 * the time range in both units, the keys of derived ids, and what the asker holds.
 */
interface Narrowing {
  test: ((labels: Labels) => boolean) | undefined;
  minMs: number;
  maxMs: number;
  minNs: bigint | undefined;
  maxNs: bigint | undefined;
  /** selectorsKey names the selectors in the id of a chunk narrowed to them. */
  selectorsKey: string;
  /** rangeKey names the selectors and the range in the id of a chunk also cut to the range. */
  rangeKey: string;
  known: (id: string) => boolean;
}

/**
 * ChunkKind is how the filter handles one kind of chunk: its series or tag sets, its time
 * bounds against the range, how much of the kept series lies in the range, and the repack.
 */
interface ChunkKind<C extends { id: string }> {
  sets(chunk: C): Labels[];
  /** place says whether the chunk lies wholly outside the range, wholly inside, or across an edge. */
  place(chunk: C, n: Narrowing): 'outside' | 'inside' | 'across';
  /** inRange counts the samples or rows of series `keep` in the range, and in all. */
  inRange(chunk: C, keep: readonly number[], n: Narrowing): { inside: number; total: number };
  /** repack packs series `keep`, cut to the range when `trim`. */
  repack(chunk: C, sets: readonly Labels[], keep: readonly number[], n: Narrowing, trim: boolean): C;
}

/** TRIM_SHARE is the largest part of a chunk a cut may keep: above it the chunk is sent whole (see the module comment). */
const TRIM_SHARE = 0.5;

/**
 * narrowChunk decides one chunk's fate: the chunk itself, nothing, a stand-in that only
 * carries a derived id (the asker holds those bytes: they are named, never encoded), or a repack.
 */
function narrowChunk<C extends { id: string }>(chunk: C, kind: ChunkKind<C>, n: Narrowing): C | undefined {
  const place = kind.place(chunk, n);
  if (place === 'outside') return undefined;
  const sets = kind.sets(chunk);
  const kept = keptOf(sets, n.test);
  if (kept === 'none') return undefined;
  const keep = indexes(kept, sets.length);
  const selectedId = kept === 'all' ? chunk.id : `${chunk.id}~${n.selectorsKey}`;
  const selected = (): C => (kept === 'all' ? chunk : n.known(selectedId) ? { ...chunk, id: selectedId } : { ...kind.repack(chunk, sets, keep, n, false), id: selectedId });
  if (place === 'inside' || n.known(selectedId)) return selected();
  const { inside, total } = kind.inRange(chunk, keep, n);
  if (inside === 0) return undefined;
  if (inside > total * TRIM_SHARE) return selected();
  const cutId = `${chunk.id}~${n.rangeKey}`;
  return n.known(cutId) ? { ...chunk, id: cutId } : { ...kind.repack(chunk, sets, keep, n, true), id: cutId };
}

/** runBounds is the part of a sorted run inside the range, as indexes into it. */
function runBounds(ts: Float64Array, n: Narrowing): [number, number] {
  return [lowerBound(ts, n.minMs), upperBound(ts, n.maxMs)];
}

const METRIC_CHUNKS: ChunkKind<SharedMetricChunk> = {
  sets: (chunk) => cached(metricLabels, chunk, unpackChunkLabels),
  place: (chunk, n) => (chunk.maxMs < n.minMs || chunk.minMs > n.maxMs ? 'outside' : chunk.minMs >= n.minMs && chunk.maxMs <= n.maxMs ? 'inside' : 'across'),
  inRange(chunk, keep, n) {
    let inside = 0;
    let total = 0;
    for (const i of keep) {
      const run = chunk.timestampsMs.subarray(chunk.offsets[i], chunk.offsets[i + 1]);
      const [from, to] = runBounds(run, n);
      inside += to - from;
      total += run.length;
    }
    return { inside, total };
  },
  repack(chunk, labels, keep, n, trim) {
    const runs: SeriesRun[] = [];
    for (const i of keep) {
      const start = chunk.offsets[i];
      const ts = chunk.timestampsMs.subarray(start, chunk.offsets[i + 1]);
      const [from, to] = trim ? runBounds(ts, n) : [0, ts.length];
      // A run must not be empty: a series with nothing in the range is left out.
      if (to <= from) continue;
      const run: SeriesRun = { ref: chunk.refs[i], labels: labels[i], timestampsMs: ts.subarray(from, to), values: chunk.values.subarray(start + from, start + to) };
      const histograms = chunkHistograms(chunk, i);
      if (histograms !== undefined) run.histograms = histograms.slice(from, to);
      runs.push(run);
    }
    return packMetricChunk(runs);
  },
};

function rowInRange(t: bigint, n: Narrowing): boolean {
  return (n.minNs === undefined || t >= n.minNs) && (n.maxNs === undefined || t <= n.maxNs);
}

const LOG_CHUNKS: ChunkKind<SharedLogChunk> = {
  sets: (chunk) => cached(logTags, chunk, unpackGroupTags),
  place(chunk, n) {
    if ((n.minNs !== undefined && chunk.maxNs < n.minNs) || (n.maxNs !== undefined && chunk.minNs > n.maxNs)) return 'outside';
    return rowInRange(chunk.minNs, n) && rowInRange(chunk.maxNs, n) ? 'inside' : 'across';
  },
  inRange(chunk, keep, n) {
    const wanted = new Set(keep);
    let inside = 0;
    let total = 0;
    for (let r = 0; r < chunk.rows; r++) {
      if (!wanted.has(chunk.groups[r])) continue;
      total++;
      if (rowInRange(chunk.timestampsNs[r], n)) inside++;
    }
    return { inside, total };
  },
  repack(chunk, tags, keep, n, trim) {
    const wanted = new Set(keep);
    const rows: number[] = [];
    let textBytes = 0;
    for (let r = 0; r < chunk.rows; r++) {
      if (!wanted.has(chunk.groups[r]) || (trim && !rowInRange(chunk.timestampsNs[r], n))) continue;
      rows.push(r);
      textBytes += chunk.lineOffsets[r + 1] - chunk.lineOffsets[r];
    }
    const text = chunkText(chunk);
    const timestampsNs = new BigInt64Array(rows.length);
    rows.forEach((r, i) => (timestampsNs[i] = chunk.timestampsNs[r]));
    const head: HeadRows = {
      timestampsNs,
      groupIds: (i) => chunk.groups[rows[i]],
      tagsOf: (i) => tags[chunk.groups[rows[i]]],
      message: (i) => chunkMessage(chunk, text, rows[i]),
    };
    return packLogChunk(head, 0, rows.length, textBytes);
  },
};

/** narrowSnapshots narrows every chunk of some snapshots, leaving out snapshots left empty. */
function narrowSnapshots<C extends { id: string }>(snapshots: ReadonlyArray<{ chunks: readonly C[] }>, kind: ChunkKind<C>, n: Narrowing): Array<{ chunks: C[] }> {
  return snapshots.map((s) => ({ chunks: s.chunks.flatMap((chunk) => narrowChunk(chunk, kind, n) ?? []) })).filter((s) => s.chunks.length > 0);
}

/** msToNs is the first (`edge` start) or last (`edge` end) nanosecond of a millisecond bound, undefined when unbounded. */
function msToNs(ms: number, edge: 'start' | 'end'): bigint | undefined {
  // Past ±10^15 ms (year 33,000) a bound is taken as none: JSON carries no infinities.
  if (!Number.isFinite(ms) || Math.abs(ms) > 1e15) return undefined;
  return edge === 'start' ? BigInt(Math.floor(ms)) * 1_000_000n : BigInt(Math.ceil(ms)) * 1_000_000n + 999_999n;
}

/**
 * narrowHeadExport keeps what `scope` can read of an export (see the module comment). `known`
 * tells whether the asker holds a chunk id already.
 */
export function narrowHeadExport(data: HeadExport, scope: HeadScope, known: (id: string) => boolean): HeadExport {
  const selectors = scope.selectors;
  if (selectors === undefined && scope.minMs === undefined && scope.maxMs === undefined) return data;
  const compiled = selectors?.map((s) => compileMatchers(s));
  const minMs = scope.minMs ?? -Infinity;
  const maxMs = scope.maxMs ?? Infinity;
  const key = selectors === undefined ? '*' : selectorsKey(selectors);
  const n: Narrowing = {
    test: compiled && ((labels) => compiled.some((c) => matchesAll(labels, c))),
    minMs,
    maxMs,
    minNs: msToNs(minMs, 'start'),
    maxNs: msToNs(maxMs, 'end'),
    selectorsKey: key,
    rangeKey: createHash('sha256').update(`${key}\u0000${minMs}\u0000${maxMs}`).digest('hex').slice(0, 16),
    known,
  };
  return { ...data, metrics: narrowSnapshots(data.metrics, METRIC_CHUNKS, n), logs: narrowSnapshots(data.logs, LOG_CHUNKS, n) };
}

/** filterHeadExport narrows an export to `selectors` alone, over all time. */
export function filterHeadExport(data: HeadExport, selectors: readonly (readonly LabelMatcher[])[], known: (id: string) => boolean): HeadExport {
  return narrowHeadExport(data, { selectors }, known);
}
