import type { SegmentMeta } from './catalog.js';
import { labelsKey, type Labels } from './labels.js';
import type { LogColumns } from './logHead.js';
import type { LogSegmentReader } from './logSegment.js';
import type { SeriesColumns } from './seriesColumns.js';
import type { MetricSegmentReader } from './metricSegment.js';
import { mergeSeriesRuns } from './seriesMerge.js';

/**
 * planCompaction picks runs of adjacent small segments to merge. `segments` are one org's
 * segments of one signal, oldest first. Only neighbours are merged, so the age order that
 * decides which of two equal-timestamp samples wins stays intact. A segment of at least half
 * the target size is left alone (merging it gains little), as is one known to be unreadable;
 * a run grows while its total stays within `targetBytes`, and only runs of two or more count.
 */
export function planCompaction(segments: readonly SegmentMeta[], targetBytes: number, unreadable: (id: number) => boolean): SegmentMeta[][] {
  const groups: SegmentMeta[][] = [];
  let run: SegmentMeta[] = [];
  let runBytes = 0;
  const close = (): void => {
    if (run.length >= 2) groups.push(run);
    run = [];
    runBytes = 0;
  };
  for (const s of segments) {
    if (unreadable(s.id) || s.bytes >= targetBytes / 2) {
      close();
      continue;
    }
    if (runBytes + s.bytes > targetBytes) close();
    run.push(s);
    runBytes += s.bytes;
  }
  close();
  return groups;
}

/** mergeMetricReaders unions the series of several segments (oldest first); a series in several is merged with newer samples winning. */
export function mergeMetricReaders(readers: readonly MetricSegmentReader[]): SeriesColumns[] {
  const runs = new Map<string, SeriesColumns[]>();
  for (const reader of readers) {
    for (const s of reader.allSeries()) {
      const key = labelsKey(s.labels);
      const list = runs.get(key);
      if (list) list.push(s);
      else runs.set(key, [s]);
    }
  }
  return [...runs.values()].map(mergeSeriesRuns);
}

/**
 * mergeLogReaders concatenates the rows of several segments (oldest first) into one set of
 * columns with a shared stream table; encoding sorts them by time, keeping this order for
 * equal timestamps, so older lines stay first.
 */
export function mergeLogReaders(readers: readonly LogSegmentReader[]): LogColumns {
  const parts = readers.map((r) => r.columns());
  let n = 0;
  for (const p of parts) n += p.timestampsNs.length;
  const timestampsNs = new BigInt64Array(n);
  const streams = new Uint32Array(n);
  const levels = new Array<string>(n);
  const messages = new Array<string>(n);
  const attributes = new Array<string>(n);
  const streamIds = new Map<string, number>();
  const streamTags: Labels[] = [];
  let at = 0;
  for (const p of parts) {
    const remap = p.streamTags.map((tags) => {
      const key = labelsKey(tags);
      let id = streamIds.get(key);
      if (id === undefined) {
        id = streamTags.length;
        streamIds.set(key, id);
        streamTags.push(tags);
      }
      return id;
    });
    timestampsNs.set(p.timestampsNs, at);
    for (let i = 0; i < p.timestampsNs.length; i++) {
      streams[at + i] = remap[p.streams[i]];
      levels[at + i] = p.levels[i];
      messages[at + i] = p.messages[i];
      attributes[at + i] = p.attributes[i];
    }
    at += p.timestampsNs.length;
  }
  return { timestampsNs, streams, streamTags, levels, messages, attributes };
}

/**
 * commonIndexedTags is the set of tags every input segment indexed: only for those does the
 * merged stream table hold every line's value, so only those may be used to prune it.
 */
export function commonIndexedTags(readers: readonly LogSegmentReader[]): string[] {
  if (readers.length === 0) return [];
  return [...readers[0].indexedTags].filter((tag) => readers.every((r) => r.indexedTags.has(tag))).sort();
}
