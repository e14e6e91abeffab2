import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LabelMatcher, Labels, Storage } from '../../engine/index.js';

type SegmentMeta = ReturnType<Storage['segments']>[number];
import { ApiError } from '../errors.js';
import { packageRoot } from '../packageRoot.js';
import { parseStreamSelector } from '../catalog/selectors.js';
import type { LokiRange } from './lokiParams.js';

/**
 * Label browsing and index figures for the Loki API. Everything here reads the stream index
 * (tag sets) and the segment catalog, never a log line, so Grafana may call it on every
 * keystroke of a query editor.
 */

/** MAX_LISTED bounds a label or series listing, so one request cannot build an unbounded answer. */
const MAX_LISTED = 100_000;

/** optionalSelector parses an optional stream selector (`query` of labels, `match[]` of series). */
export function optionalSelector(text: string | null): LabelMatcher[] {
  if (text === null || text.trim() === '') return [];
  return parseStreamSelector(text);
}

/** labelNames lists the label names of the streams matching `matchers` with lines in the range, sorted. */
export function labelNames(storage: Storage, org: string, matchers: LabelMatcher[], range: LokiRange): string[] {
  const names = new Set<string>();
  storage.logTagSets(org).forEachTagSet(matchers, range.startNs, range.endNs, (tags) => {
    for (const key in tags) names.add(key);
    return names.size < MAX_LISTED;
  });
  return [...names].sort();
}

/** labelValues lists the values `name` takes on the matching streams, sorted. */
export function labelValues(storage: Storage, org: string, name: string, matchers: LabelMatcher[], range: LokiRange): string[] {
  const values = new Set<string>();
  const carrying: LabelMatcher[] = [...matchers, { name, type: '!=', value: '' }];
  storage.logTagSets(org).forEachTagSet(carrying, range.startNs, range.endNs, (tags) => {
    values.add(tags[name]);
    return values.size < MAX_LISTED;
  });
  return [...values].sort();
}

/** seriesOf lists the distinct label sets of streams matching any of the selectors. */
export function seriesOf(storage: Storage, org: string, selectors: LabelMatcher[][], range: LokiRange): Labels[] {
  const seen = new Map<string, Labels>();
  for (const matchers of selectors.length === 0 ? [[]] : selectors) {
    storage.logTagSets(org).forEachTagSet(matchers, range.startNs, range.endNs, (tags) => {
      const key = JSON.stringify(Object.keys(tags).sort().map((k) => [k, tags[k]]));
      if (!seen.has(key)) seen.set(key, tags);
      if (seen.size >= MAX_LISTED) throw new ApiError('BAD_REQUEST', `the selectors match more than ${MAX_LISTED} series; narrow them`);
      return true;
    });
  }
  return [...seen.values()];
}

export interface IndexStats {
  streams: number;
  chunks: number;
  bytes: number;
  entries: number;
}

/**
 * indexStats answers /index/stats from the catalog: streams are the matching tag sets; chunks,
 * bytes and entries are those of the stored segments whose time range and indexed tags may
 * match. Lines still in the write head are not in the catalog yet, so recent data counts in
 * `streams` only until it is cut to a segment.
 */
export function indexStats(storage: Storage, org: string, matchers: LabelMatcher[], range: LokiRange): IndexStats {
  let streams = 0;
  storage.logTagSets(org).forEachTagSet(matchers, range.startNs, range.endNs, () => {
    streams++;
  });
  let chunks = 0;
  let bytes = 0;
  let entries = 0;
  for (const segment of storage.segments()) {
    if (segment.org !== org || segment.signal !== 'logs' || !segmentMayMatch(segment, matchers, range)) continue;
    chunks++;
    bytes += segment.bytes;
    entries += segment.rows;
  }
  return { streams, chunks, bytes, entries };
}

/** segmentMayMatch prunes a segment on its time bounds and on equality matchers over the tags it indexed. */
function segmentMayMatch(segment: SegmentMeta, matchers: LabelMatcher[], range: LokiRange): boolean {
  const minNs = segment.minNs !== undefined ? BigInt(segment.minNs) : BigInt(segment.minMs) * 1_000_000n;
  const maxNs = segment.maxNs !== undefined ? BigInt(segment.maxNs) : BigInt(segment.maxMs) * 1_000_000n + 999_999n;
  if (maxNs < range.startNs || minNs > range.endNs) return false;
  for (const m of matchers) {
    if (m.type !== '=' || m.name === 'level') continue;
    const values = segment.tagValues?.[m.name];
    if (values !== undefined && values !== null && !values.includes(m.value)) return false;
  }
  return true;
}

let cachedVersion: string | undefined;

/** buildInfo is /status/buildinfo: the version Grafana shows and uses to pick the features it offers. */
export function buildInfo(): Record<string, string> {
  cachedVersion ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return { version: cachedVersion, revision: '', branch: '', buildUser: '', buildDate: '', goVersion: '' };
}
