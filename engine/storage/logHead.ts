import { GrowableBigInt64, GrowableUint32 } from './growable.js';
import { labelsKey, sortKeepingEmpty, sortLabels, type Labels } from './labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from './matchers.js';

/** LogRecord is one log line as stored: `message` and `level` are columns, everything else a tag. */
export interface LogRecord {
  timestampNs: bigint;
  message: string;
  level: string;
  tags: Record<string, string>;
}

/**
 * LogStreamData is a run of log lines sharing one full tag set (level included), in time
 * order: the unit a LogQL pipeline processes, as a Loki stream is.
 */
export interface LogStreamData {
  tags: Labels;
  timestampsNs: BigInt64Array;
  messages: string[];
}

export interface LogReader {
  /** select returns matching lines in [minNs, maxNs], grouped by tag set, each group oldest first. */
  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint): LogStreamData[];
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
 * distinct attribute set, not once per line.
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
  private readonly streamIds = new GrowableUint32(1024);
  private readonly levels: string[] = [];
  private readonly messages: string[] = [];
  private readonly attributes: string[] = [];
  private readonly attributeCache = new Map<string, string>();
  minNs: bigint | undefined;
  maxNs: bigint | undefined;
  bytes = 0;

  constructor(private readonly indexedTags: ReadonlySet<string> = new Set(DEFAULT_INDEXED_TAGS)) {}

  get rowCount(): number {
    return this.messages.length;
  }

  append(records: readonly LogRecord[]): void {
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
      const attrJson = JSON.stringify(sortKeepingEmpty(rest));
      let shared = this.attributeCache.get(attrJson);
      if (shared === undefined) this.attributeCache.set(attrJson, (shared = attrJson));
      this.timestamps.push(r.timestampNs);
      this.streamIds.push(stream.id);
      this.levels.push(r.level);
      this.messages.push(r.message);
      this.attributes.push(shared);
      this.bytes += r.message.length;
      if (this.minNs === undefined || r.timestampNs < this.minNs) this.minNs = r.timestampNs;
      if (this.maxNs === undefined || r.timestampNs > this.maxNs) this.maxNs = r.timestampNs;
    }
  }

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint): LogStreamData[] {
    const compiled = compileMatchers(matchers);
    const ts = this.timestamps.view();
    const sids = this.streamIds.view();
    // Decisions are cached per stream and per (stream, level, attributes) group.
    const groups = new Map<string, { tags: Labels; rows: number[] | undefined }>();
    const streamOk = new Map<number, boolean>();
    const indexedMatchers = compiled.filter((m) => this.indexedTags.has(m.name));
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i];
      if (t < minNs || t > maxNs) continue;
      const sid = sids[i];
      let ok = streamOk.get(sid);
      if (ok === undefined) streamOk.set(sid, (ok = matchesAll(this.streamList[sid].tags, indexedMatchers)));
      if (!ok) continue;
      const groupKey = `${sid}\x00${this.levels[i]}\x00${this.attributes[i]}`;
      let group = groups.get(groupKey);
      if (group === undefined) {
        const tags = this.fullTags(sid, this.levels[i], this.attributes[i]);
        group = { tags, rows: matchesAll(tags, compiled) ? [] : undefined };
        groups.set(groupKey, group);
      }
      if (group.rows) group.rows.push(i);
    }
    const merged = new Map<string, { tags: Labels; rows: number[] }>();
    for (const g of groups.values()) {
      if (!g.rows) continue;
      const key = labelsKey(g.tags);
      const existing = merged.get(key);
      // A loop, not push(...rows): spreading a group of millions of rows overflows the stack.
      if (existing) for (const row of g.rows) existing.rows.push(row);
      else merged.set(key, { tags: g.tags, rows: g.rows });
    }
    const out: LogStreamData[] = [];
    for (const { tags, rows } of merged.values()) {
      rows.sort((a, b) => (ts[a] < ts[b] ? -1 : ts[a] > ts[b] ? 1 : a - b));
      const timestampsNs = new BigInt64Array(rows.length);
      const messages = new Array<string>(rows.length);
      for (let j = 0; j < rows.length; j++) {
        timestampsNs[j] = ts[rows[j]];
        messages[j] = this.messages[rows[j]];
      }
      out.push({ tags, timestampsNs, messages });
    }
    return out;
  }

  /**
   * forEachTagSet scans the rows once, deciding each stream and each (stream, level,
   * attributes) group the first time it appears; attribute strings are shared per distinct
   * set, so the per-row work is a few map lookups and allocates nothing. Groups that render to
   * the same tag set (a `level` attribute shadowed by the level column) are visited once.
   */
  forEachTagSet(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, visit: TagSetVisitor): void {
    const compiled = compileMatchers(matchers);
    const indexedMatchers = compiled.filter((m) => this.indexedTags.has(m.name));
    const ts = this.timestamps.view();
    const sids = this.streamIds.view();
    // 0: stream not yet decided, 1: its stream tags match, 2: they do not.
    const streamState = new Uint8Array(this.streamList.length);
    const seen: Array<Map<string, Set<string>> | undefined> = new Array(this.streamList.length);
    const visited = new Set<string>();
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i];
      if (t < minNs || t > maxNs) continue;
      const sid = sids[i];
      let state = streamState[sid];
      if (state === 0) streamState[sid] = state = matchesAll(this.streamList[sid].tags, indexedMatchers) ? 1 : 2;
      if (state === 2) continue;
      const level = this.levels[i];
      const attributes = this.attributes[i];
      let byLevel = seen[sid];
      if (byLevel === undefined) seen[sid] = byLevel = new Map();
      let attributeSets = byLevel.get(level);
      if (attributeSets === undefined) byLevel.set(level, (attributeSets = new Set()));
      if (attributeSets.has(attributes)) continue;
      attributeSets.add(attributes);
      const tags = this.fullTags(sid, level, attributes);
      if (!matchesAll(tags, compiled)) continue;
      const key = labelsKey(tags);
      if (visited.has(key)) continue;
      visited.add(key);
      if (visit(tags) === false) return;
    }
  }

  private fullTags(streamId: number, level: string, attributes: string): Labels {
    return composeTags(this.streamList[streamId].tags, level, attributes);
  }

  /** estimatedBytes approximates the head's memory, to decide when it is worth cutting into a segment. */
  get estimatedBytes(): number {
    return this.bytes + this.messages.length * ROW_OVERHEAD_BYTES;
  }

  /**
   * columns exposes the head's rows as columns, in arrival order, for writing a segment. The
   * arrays are the head's own: callers read them only once the head takes no more appends.
   */
  columns(): LogColumns {
    return {
      timestampsNs: this.timestamps.view(),
      streams: this.streamIds.view(),
      streamTags: this.streamList.map((s) => s.tags),
      levels: this.levels,
      messages: this.messages,
      attributes: this.attributes,
    };
  }
}

/** ROW_OVERHEAD_BYTES is the per-line memory beyond the message text: timestamp, ids and array slots. */
const ROW_OVERHEAD_BYTES = 48;

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
