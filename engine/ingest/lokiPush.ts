/**
 * Loki push API (`/loki/api/v1/push`): JSON (`{"streams":[{"stream":{...},"values":[[ts, line,
 * {metadata}]]}]}`) or a snappy-compressed protobuf `logproto.PushRequest` whose streams carry
 * their labels as a selector string (parsed strictly by lokiSelector.ts).
 *
 * Stream labels and structured metadata both become tags (dots replaced by underscores). A
 * metadata field that repeats a stream label's name is stored as `<name>_extracted` and the
 * stream label keeps its value: Loki keeps the two apart and its query pipeline shows the
 * metadata value under that name, so LogQL reads the same labels here as there. The level is
 * taken from the first of the `level`, `detected_level` and `severity` tags that names a known
 * severity (that tag is then not repeated in `tags`). An entry without one gets Loki's
 * `detected_level` tag, derived from other level-named fields or from the line itself
 * (detectedLevel.ts), and its level follows from that value ('unknown' when it names none),
 * so lines pushed without a level still split by severity in queries and log volumes. With
 * the org's discoverLogLevels off (Loki's discover_log_levels: false) such an entry gets
 * neither: no `detected_level` tag and an empty level, so no `level` label.
 * A stream whose labels cannot be parsed is rejected with all its entries.
 */
import { bodyFormat } from './contentType.js';
import { badRequest, withContext } from './errors.js';
import { asArray, asObject, parseJsonBody } from './jsonFields.js';
import { setLabel } from './labelObject.js';
import { checkLineAttributes, checkLogLine, checkStreamLabels, describeLabels, Rejections, resolveLimits, TimeBounds } from './limits.js';
import type { Problem } from './limits.js';
import { parseStreamSelector } from './lokiSelector.js';
import { tagKey } from './otlpValue.js';
import { ProtoReader, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag, scanMessage } from './protobuf.js';
import { DETECTED_LEVEL, detectLevel, normalizeDetectedLevel } from './detectedLevel.js';
import { levelFromText, UNKNOWN_LEVEL } from './severity.js';
import { snappyDecompress } from './snappy.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from './types.js';
import type { DecodeOptions, DecodeResult, IngestLimits, LogEntry } from './types.js';
import { decodeUtf8 } from './utf8.js';

/** EXTRACTED_SUFFIX names a metadata value whose name a stream label already has, as LogQL shows it. */
const EXTRACTED_SUFFIX = '_extracted';

/** NO_LEVEL is the level of a line stored without one: it shows no `level` label. */
const NO_LEVEL = '';

/** LEVEL_TAGS are the tags a level is read from, in order of preference. */
const LEVEL_TAGS = ['level', 'detected_level', 'severity'] as const;

const REQUEST_STREAMS = fieldTag(1, WIRE_LENGTH_DELIMITED);
const STREAM_LABELS = 1;
const STREAM_ENTRIES = 2;
const ENTRY_TIMESTAMP = fieldTag(1, WIRE_LENGTH_DELIMITED);
const ENTRY_LINE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const ENTRY_METADATA = fieldTag(3, WIRE_LENGTH_DELIMITED);
const TIMESTAMP_SECONDS = fieldTag(1, WIRE_VARINT);
const TIMESTAMP_NANOS = fieldTag(2, WIRE_VARINT);
const PAIR_NAME = fieldTag(1, WIRE_LENGTH_DELIMITED);
const PAIR_VALUE = fieldTag(2, WIRE_LENGTH_DELIMITED);

const NS_PER_SECOND = 1_000_000_000n;
const DIGITS = /^\d+$/;

/**
 * decodeLokiPush decodes a Loki push body. JSON is chosen by an `application/json`
 * Content-Type; otherwise (protobuf or no Content-Type, as Loki does) the body is a snappy
 * block holding a PushRequest.
 */
export function decodeLokiPush(body: Uint8Array, contentType: string | undefined, opts: DecodeOptions): DecodeResult<LogEntry> {
  const format = bodyFormat(contentType, 'Loki push', () => 'protobuf');
  if (format === 'json') return withContext('invalid Loki push JSON', () => decodeLokiPushJson(body, opts));
  const maxBytes = opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const raw = withContext('invalid Loki push body', () => snappyDecompress(body, maxBytes));
  return decodePushRequest(raw, opts);
}

/** decodePushRequest decodes an uncompressed `logproto.PushRequest` protobuf. */
export function decodePushRequest(raw: Uint8Array, opts: DecodeOptions): DecodeResult<LogEntry> {
  return withContext('invalid Loki PushRequest protobuf', () => {
    const r = new ProtoReader(raw);
    const out = new LokiAssembler(opts);
    let si = 0;
    while (r.pos < r.limit) {
      const tag = r.tag();
      if (tag === REQUEST_STREAMS) readStream(r, r.messageEnd(), out, si++);
      else r.skip(tag);
    }
    return out.result();
  });
}

function readStream(r: ProtoReader, end: number, out: LokiAssembler, si: number): void {
  const spans = scanMessage(r, end, [STREAM_LABELS, STREAM_ENTRIES]);
  let labelsText = '';
  for (const span of spans.get(STREAM_LABELS)!) labelsText = decodeUtf8(r.buf, span.start, span.end);
  const entries = spans.get(STREAM_ENTRIES)!;
  r.pos = end;
  const parsed = parseStreamSelector(labelsText);
  if (!parsed.ok) {
    out.rejectStream(entries.length, {
      reason: 'invalid_labels',
      message: `stream ${si} labels ${JSON.stringify(labelsText)}: ${parsed.message}`,
    });
    return;
  }
  if (!out.setStream(parsed.labels, si, entries.length)) return;
  for (let ei = 0; ei < entries.length; ei++) {
    r.pos = entries[ei].start;
    readEntry(r, entries[ei].end, out, si, ei);
  }
  r.pos = end;
}

function readEntry(r: ProtoReader, end: number, out: LokiAssembler, si: number, ei: number): void {
  let seconds = 0;
  let nanos = 0;
  let line = '';
  let metadata: Array<[string, string]> | null = null;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === ENTRY_TIMESTAMP) {
      const tsEnd = r.messageEnd();
      while (r.pos < tsEnd) {
        const t = r.tag();
        if (t === TIMESTAMP_SECONDS) seconds = r.int64Number();
        else if (t === TIMESTAMP_NANOS) nanos = r.int32();
        else r.skip(t);
      }
      r.checkEnd(tsEnd);
    } else if (tag === ENTRY_LINE) {
      line = r.string();
    } else if (tag === ENTRY_METADATA) {
      const pairEnd = r.messageEnd();
      let name = '';
      let value = '';
      while (r.pos < pairEnd) {
        const t = r.tag();
        if (t === PAIR_NAME) name = r.string();
        else if (t === PAIR_VALUE) value = r.string();
        else r.skip(t);
      }
      r.checkEnd(pairEnd);
      (metadata ??= []).push([name, value]);
    } else {
      r.skip(tag);
    }
  }
  r.checkEnd(end);
  if (nanos < 0 || nanos >= 1e9 || seconds < 0) {
    out.rejectEntry(si, ei, { reason: 'invalid_timestamp', message: `invalid timestamp (seconds=${seconds}, nanos=${nanos})` });
    return;
  }
  out.addEntry(BigInt(seconds) * NS_PER_SECOND + BigInt(nanos), line, metadata, si, ei);
}

/** describeTimestamp shows a rejected timestamp value in a message, shortened if long. */
function describeTimestamp(ts: unknown): string {
  if (typeof ts === 'string') return ts.length <= 40 ? JSON.stringify(ts) : `${JSON.stringify(ts.slice(0, 40))}… (${ts.length} chars)`;
  if (typeof ts === 'number' || typeof ts === 'boolean') return String(ts);
  if (ts === null) return 'null';
  return Array.isArray(ts) ? 'an array' : 'an object';
}

/** decodeLokiPushJson decodes a Loki push JSON body. */
export function decodeLokiPushJson(body: Uint8Array, opts: DecodeOptions): DecodeResult<LogEntry> {
  const root = parseJsonBody(body);
  const out = new LokiAssembler(opts);
  const streams = asArray(root.streams, 'streams');
  for (let si = 0; si < streams.length; si++) {
    const sPath = `streams[${si}]`;
    const stream = asObject(streams[si], sPath) ?? {};
    const labelsObj = asObject(stream.stream, `${sPath}.stream`) ?? {};
    const labels: Array<[string, string]> = [];
    for (const name of Object.keys(labelsObj)) {
      const value = labelsObj[name];
      if (typeof value !== 'string') throw badRequest(`${sPath}.stream.${name}: expected a string label value`);
      labels.push([name, value]);
    }
    const values = asArray(stream.values, `${sPath}.values`);
    if (!out.setStream(labels, si, values.length)) continue;
    for (let ei = 0; ei < values.length; ei++) {
      const ePath = `${sPath}.values[${ei}]`;
      const entry = values[ei];
      if (!Array.isArray(entry) || entry.length < 2 || entry.length > 3) {
        throw badRequest(`${ePath}: expected [timestamp, line] or [timestamp, line, metadata]`);
      }
      const [ts, line, meta] = entry as [unknown, unknown, unknown];
      if (typeof line !== 'string') throw badRequest(`${ePath}[1]: expected the log line as a string`);
      let metadata: Array<[string, string]> | null = null;
      const metaObj = asObject(meta, `${ePath}[2]`);
      if (metaObj !== undefined) {
        metadata = [];
        for (const name of Object.keys(metaObj)) {
          const value = metaObj[name];
          if (typeof value !== 'string') throw badRequest(`${ePath}[2].${name}: expected a string metadata value`);
          metadata.push([name, value]);
        }
      }
      // A bad timestamp costs only its entry, as any other value out of bounds does.
      if (typeof ts !== 'string' || !DIGITS.test(ts)) {
        out.rejectEntry(si, ei, {
          reason: 'invalid_timestamp',
          message: `timestamp ${describeTimestamp(ts)} is not a string of Unix epoch nanoseconds`,
        });
        continue;
      }
      out.addEntry(BigInt(ts), line, metadata, si, ei);
    }
  }
  return out.result();
}

/** LokiAssembler applies the mapping and the limits to streams and entries. */
class LokiAssembler {
  private readonly limits: IngestLimits;
  private readonly bounds: TimeBounds;
  private readonly records: LogEntry[] = [];
  private readonly rejections = new Rejections();
  /** every label of the current stream */
  private streamTags: Record<string, string> = {};
  /** the stream's labels without the one its level was read from, copied for each entry */
  private streamBase: Record<string, string> = {};
  private streamLevel = UNKNOWN_LEVEL;
  /** whether the stream's labels named the level; if not, each entry's level is detected */
  private streamHasLevel = false;

  constructor(opts: DecodeOptions) {
    this.limits = resolveLimits(opts.limits);
    this.bounds = new TimeBounds(opts.nowMs, this.limits);
  }

  /** setStream starts a stream; false (after rejecting its entries) when its labels are invalid. */
  setStream(labels: Array<[string, string]>, si: number, entryCount: number): boolean {
    const tags: Record<string, string> = {};
    // An empty stream label is no label: Loki drops it on write (empty metadata values stay).
    for (const [name, value] of labels) if (value !== '') setLabel(tags, tagKey(name), value);
    this.streamTags = tags;
    const problem: Problem | undefined =
      labels.length === 0 ? { reason: 'invalid_labels', message: 'a stream needs at least one label' } : checkStreamLabels(tags, this.limits);
    if (problem !== undefined) {
      this.rejectStream(entryCount, { reason: problem.reason, message: `stream ${si} ${describeLabels(tags)}: ${problem.message}` });
      return false;
    }
    const { level, key } = findLevel(tags, null);
    this.streamLevel = level;
    this.streamHasLevel = key !== undefined;
    this.streamBase = key === undefined ? tags : without(tags, key);
    return true;
  }

  rejectStream(entryCount: number, problem: Problem): void {
    if (entryCount > 0) this.rejections.reject(entryCount, problem.reason, problem.message);
  }

  rejectEntry(si: number, ei: number, problem: Problem): void {
    this.rejections.reject(1, problem.reason, `stream ${si} ${describeLabels(this.streamTags)} entry ${ei}: ${problem.message}`);
  }

  addEntry(
    timestampNs: bigint,
    line: string,
    metadata: Array<[string, string]> | null,
    si: number,
    ei: number,
  ): void {
    let tags: Record<string, string>;
    let level: string;
    let problem = checkLogLine(line, this.limits);
    if (metadata === null) {
      // The stream's labels were validated once in setStream.
      tags = { ...this.streamBase };
      level = this.streamHasLevel ? this.streamLevel : this.undeclaredLevel(tags, null, line);
    } else {
      const named = metadata.map(([name, value]): [string, string] => {
        const key = tagKey(name);
        return [Object.hasOwn(this.streamTags, key) ? key + EXTRACTED_SUFFIX : key, value];
      });
      const found = findLevel(this.streamTags, named);
      level = found.level;
      tags = {};
      for (const name in this.streamTags) if (name !== found.key) setLabel(tags, name, this.streamTags[name]);
      for (const [name, value] of named) if (name !== found.key) setLabel(tags, name, value);
      if (found.key === undefined) level = this.undeclaredLevel(tags, Object.fromEntries(named), line);
      problem ??= checkLineAttributes(
        metadata.map((pair) => pair[0]),
        metadata.map((pair) => pair[1]),
        this.limits,
      );
    }
    problem ??= this.bounds.checkNs(timestampNs);
    if (problem !== undefined) {
      this.rejectEntry(si, ei, problem);
      return;
    }
    this.records.push({ timestampNs, message: line, level, tags });
  }

  /**
   * undeclaredLevel is the level of an entry that named none: derived as Loki's distributor
   * derives `detected_level` (which is added to `tags`), or empty when the org turned that off.
   */
  private undeclaredLevel(tags: Record<string, string>, metadata: Record<string, string> | null, line: string): string {
    return this.limits.discoverLogLevels === 0 ? NO_LEVEL : detectInto(tags, this.streamTags, metadata, line);
  }

  result(): DecodeResult<LogEntry> {
    return {
      records: this.records,
      rejected: this.rejections.count,
      discarded: this.rejections.byReason,
      errors: this.rejections.errors(),
    };
  }
}

/**
 * detectInto sets Loki's `detected_level` on the tags of an entry that named no level (a
 * value given by the client is kept, normalized) and returns the level that value names.
 */
function detectInto(tags: Record<string, string>, streamTags: Record<string, string>, metadata: Record<string, string> | null, line: string): string {
  const given = tags[DETECTED_LEVEL];
  const detected = given !== undefined ? normalizeDetectedLevel(given) : detectLevel(streamTags, metadata, line);
  tags[DETECTED_LEVEL] = detected;
  return levelFromText(detected) ?? UNKNOWN_LEVEL;
}

/**
 * findLevel reads the level from the first of LEVEL_TAGS that names a known severity, looking
 * at the entry's metadata before the stream's labels, and says which tag it came from.
 */
function findLevel(
  streamTags: Record<string, string>,
  metadata: Array<[string, string]> | null,
): { level: string; key: string | undefined } {
  for (const key of LEVEL_TAGS) {
    let text: string | undefined;
    if (metadata !== null) {
      for (let i = metadata.length - 1; i >= 0 && text === undefined; i--) if (metadata[i][0] === key) text = metadata[i][1];
    }
    if (text === undefined && Object.hasOwn(streamTags, key)) text = streamTags[key];
    const level = text === undefined ? undefined : levelFromText(text);
    if (level !== undefined) return { level, key };
  }
  return { level: UNKNOWN_LEVEL, key: undefined };
}

/** without copies tags leaving one name out (a copy, never `delete`, keeps objects fast). */
function without(tags: Record<string, string>, leftOut: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in tags) if (name !== leftOut) setLabel(out, name, tags[name]);
  return out;
}
