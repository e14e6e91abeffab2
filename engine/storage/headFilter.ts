import { createHash } from 'node:crypto';
import type { HeadExport } from './headWire.js';
import type { Labels } from './labels.js';
import { chunkMessage, chunkText, packLogChunk, unpackGroupTags, type HeadRows, type SharedLogChunk } from './logChunk.js';
import { compileMatchers, matchesAll, type LabelMatcher } from './matchers.js';
import { chunkHistograms, packMetricChunk, unpackChunkLabels, type SeriesRun, type SharedMetricChunk } from './metricChunk.js';

/**
 * The head filter narrows a head export to the series (metrics) or streams (logs) a query's
 * selectors can match, so a query process asking for a narrow selector over a big head
 * receives only what it reads. A series or tag set is kept when it matches every matcher of
 * at least one selector, as the readers select it (SnapshotMetricReader, SnapshotLogReader).
 *
 * A chunk whose series all match is sent as it is, and one with none is left out. Any other
 * is repacked with the matching series only, under an id derived from the chunk's and the
 * selectors': a sealed chunk never changes, so the same selectors give the same bytes, and a
 * query process that kept that repacked chunk from an earlier answer names it instead of
 * receiving it again (`known`).
 */

/** selectorsKey names a set of selectors independently of their order, for derived chunk ids. */
export function selectorsKey(selectors: readonly (readonly LabelMatcher[])[]): string {
  const canonical = selectors.map((s) => JSON.stringify(s.map((m) => [m.name, m.type, m.value]))).sort();
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}

/** Chunk label sets are parsed once per chunk, not once per request: sealed chunks serve many. */
const metricLabels = new WeakMap<SharedMetricChunk, Labels[]>();
const logTags = new WeakMap<SharedLogChunk, Labels[]>();

function cached<C extends object>(cache: WeakMap<C, Labels[]>, chunk: C, unpack: (c: C) => Labels[]): Labels[] {
  let labels = cache.get(chunk);
  if (labels === undefined) cache.set(chunk, (labels = unpack(chunk)));
  return labels;
}

/** Kept is a chunk's fate: sent as it is, left out, or repacked with some of its series. */
type Kept = 'all' | 'none' | number[];

function keptOf(sets: readonly Labels[], test: (labels: Labels) => boolean): Kept {
  const keep: number[] = [];
  for (let i = 0; i < sets.length; i++) if (test(sets[i])) keep.push(i);
  if (keep.length === 0) return 'none';
  return keep.length === sets.length ? 'all' : keep;
}

/** repackMetrics packs series `keep` of a chunk into a new chunk. */
function repackMetrics(chunk: SharedMetricChunk, labels: readonly Labels[], keep: readonly number[]): SharedMetricChunk {
  const runs: SeriesRun[] = keep.map((i) => {
    const from = chunk.offsets[i];
    const to = chunk.offsets[i + 1];
    const run: SeriesRun = { ref: chunk.refs[i], labels: labels[i], timestampsMs: chunk.timestampsMs.subarray(from, to), values: chunk.values.subarray(from, to) };
    const histograms = chunkHistograms(chunk, i);
    if (histograms !== undefined) run.histograms = histograms;
    return run;
  });
  return packMetricChunk(runs);
}

/** repackLogs packs the rows of the chunk's groups `keep` into a new chunk, in their order. */
function repackLogs(chunk: SharedLogChunk, tags: readonly Labels[], keep: readonly number[]): SharedLogChunk {
  const wanted = new Set(keep);
  const rows: number[] = [];
  let textBytes = 0;
  for (let r = 0; r < chunk.rows; r++) {
    if (!wanted.has(chunk.groups[r])) continue;
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
}

/** Narrowing is what selectors mean for one request: the test per series or tag set, the derived-id key, and what the asker holds. */
interface Narrowing {
  test: (labels: Labels) => boolean;
  key: string;
  known: (id: string) => boolean;
}

/**
 * narrowChunk applies a chunk's fate: the chunk itself, nothing, a stand-in that only carries
 * the derived id (the asker holds those bytes: they are named, never encoded), or the repack.
 */
function narrowChunk<C extends { id: string }>(chunk: C, sets: readonly Labels[], n: Narrowing, repack: (keep: number[]) => C): C | undefined {
  const kept = keptOf(sets, n.test);
  if (kept === 'all') return chunk;
  if (kept === 'none') return undefined;
  const id = `${chunk.id}~${n.key}`;
  return n.known(id) ? { ...chunk, id } : { ...repack(kept), id };
}

/** narrowSnapshots narrows every chunk of some snapshots, leaving out snapshots left empty. */
function narrowSnapshots<C extends { id: string }>(
  snapshots: ReadonlyArray<{ chunks: readonly C[] }>,
  n: Narrowing,
  setsOf: (chunk: C) => Labels[],
  repack: (chunk: C, sets: readonly Labels[], keep: readonly number[]) => C,
): Array<{ chunks: C[] }> {
  return snapshots
    .map((s) => ({
      chunks: s.chunks.flatMap((chunk) => {
        const sets = setsOf(chunk);
        return narrowChunk(chunk, sets, n, (keep) => repack(chunk, sets, keep)) ?? [];
      }),
    }))
    .filter((s) => s.chunks.length > 0);
}

/**
 * filterHeadExport keeps what `selectors` can match of an export (see the module comment).
 * `known` tells whether the asker holds a chunk id already.
 */
export function filterHeadExport(data: HeadExport, selectors: readonly (readonly LabelMatcher[])[], known: (id: string) => boolean): HeadExport {
  const compiled = selectors.map((s) => compileMatchers(s));
  const n: Narrowing = { test: (labels) => compiled.some((c) => matchesAll(labels, c)), key: selectorsKey(selectors), known };
  return {
    ...data,
    metrics: narrowSnapshots(data.metrics, n, (chunk) => cached(metricLabels, chunk, unpackChunkLabels), repackMetrics),
    logs: narrowSnapshots(data.logs, n, (chunk) => cached(logTags, chunk, unpackGroupTags), repackLogs),
  };
}
