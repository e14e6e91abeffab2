/**
 * The OTLP log mapping, shared by the protobuf and JSON decoders, which only read the wire
 * format and hand each record here. The mapping follows Sluice's naming conventions:
 *
 * - `message` is the body: a string body as it is, any other kind rendered as JSON, an
 *   absent body as ''.
 * - `level` comes from severityText when it names a known severity (warning -> warn,
 *   err -> error, critical -> fatal, ...), else from severityNumber ranges, else 'unknown'.
 *   An unrecognized text is kept as the `severity_text` tag, and `severity_number` is kept as
 *   a tag only when no level could be found, so neither is lost.
 * - The timestamp is timeUnixNano, or observedTimeUnixNano when that is 0, or the receiver's
 *   clock when both are.
 * - Tags, from lowest to highest precedence: resource attributes, scope attributes,
 *   `scope_name`/`scope_version`, log attributes, then `trace_id`, `span_id` (hex) and
 *   `event_name` when present. Keys have dots replaced by underscores; nested maps are
 *   flattened with `_`; arrays are JSON.
 */
import { setLabel } from './labelObject.js';
import { addFlattenedTag, valueToJson } from './otlpValue.js';
import type { OtlpAttribute, OtlpValue } from './otlpValue.js';
import type { OtlpScope } from './otlpCommonProto.js';
import { DEFAULT_INDEXED_TAGS } from '../storage/logHead.js';
import { checkLineAttributes, checkLogLine, checkStreamLabels, Rejections, resolveLimits, TimeBounds } from './limits.js';
import type { Problem } from './limits.js';
import { levelFromSeverityNumber, levelFromText, UNKNOWN_LEVEL } from './severity.js';
import type { DecodeOptions, DecodeResult, IngestLimits, LogEntry } from './types.js';

/** LogRecordFields are the non-attribute fields of one LogRecord, as a decoder read them. */
export interface LogRecordFields {
  timeNs: bigint;
  observedNs: bigint;
  severityNumber: number;
  severityText: string;
  body: OtlpValue;
  /** lowercase hex, '' when absent */
  traceId: string;
  /** lowercase hex, '' when absent */
  spanId: string;
  eventName: string;
  /** why a timestamp field could not be read (JSON allows any value there); '' when it could */
  timeError: string;
}

/** emptyLogRecordFields returns the defaults of a LogRecord, for a decoder to fill. */
export function emptyLogRecordFields(): LogRecordFields {
  return {
    timeNs: 0n,
    observedNs: 0n,
    severityNumber: 0,
    severityText: '',
    body: null,
    traceId: '',
    spanId: '',
    eventName: '',
    timeError: '',
  };
}

const NS_PER_MS = 1_000_000n;

/** DEFAULT_STREAM_TAGS is the stream tag set when the caller does not name one. */
const DEFAULT_STREAM_TAGS: ReadonlySet<string> = new Set(DEFAULT_INDEXED_TAGS);

/** OtlpLogAssembler maps the records of one request and collects entries and rejections. */
export class OtlpLogAssembler {
  private readonly limits: IngestLimits;
  private readonly bounds: TimeBounds;
  private readonly nowNs: bigint;
  private readonly streamTags: ReadonlySet<string>;
  private readonly records: LogEntry[] = [];
  private readonly rejections = new Rejections();
  private resourceTags: Record<string, string> = {};
  private baseTags: Record<string, string> = {};
  private readonly scratch = emptyLogRecordFields();

  constructor(opts: DecodeOptions) {
    this.limits = resolveLimits(opts.limits);
    this.bounds = new TimeBounds(opts.nowMs, this.limits);
    this.nowNs = BigInt(Math.floor(opts.nowMs)) * NS_PER_MS;
    this.streamTags = opts.streamTags ?? DEFAULT_STREAM_TAGS;
  }

  /** setResource starts a ResourceLogs: its attributes become the lowest-precedence tags. */
  setResource(attributes: OtlpAttribute[]): void {
    const tags: Record<string, string> = {};
    for (let i = 0; i < attributes.length; i++) addFlattenedTag(tags, attributes[i].key, attributes[i].value);
    this.resourceTags = tags;
    this.baseTags = tags;
  }

  /** setScope starts a ScopeLogs of the current resource. */
  setScope(scope: OtlpScope): void {
    const tags: Record<string, string> = { ...this.resourceTags };
    for (let i = 0; i < scope.attributes.length; i++) addFlattenedTag(tags, scope.attributes[i].key, scope.attributes[i].value);
    if (scope.name !== '') tags.scope_name = scope.name;
    if (scope.version !== '') tags.scope_version = scope.version;
    this.baseTags = tags;
  }

  /**
   * scratchFields returns the one LogRecordFields object of this assembler, reset to the
   * defaults, for a decoder to fill for the next record (addRecord copies what it keeps).
   */
  scratchFields(): LogRecordFields {
    const f = this.scratch;
    f.timeNs = 0n;
    f.observedNs = 0n;
    f.severityNumber = 0;
    f.severityText = '';
    f.body = null;
    f.traceId = '';
    f.spanId = '';
    f.eventName = '';
    f.timeError = '';
    return f;
  }

  /** newTags returns a fresh tag set holding the resource and scope tags, for one record. */
  newTags(): Record<string, string> {
    return { ...this.baseTags };
  }

  /**
   * addRecord maps one record whose attributes the decoder has already added to `tags` (from
   * newTags) and keeps it, or rejects it naming its position in the request.
   */
  addRecord(tags: Record<string, string>, rec: LogRecordFields, ri: number, si: number, li: number): void {
    let level = levelFromText(rec.severityText);
    if (level === undefined && rec.severityText !== '') tags.severity_text = rec.severityText;
    if (level === undefined) level = levelFromSeverityNumber(rec.severityNumber);
    if (level === undefined) {
      level = UNKNOWN_LEVEL;
      if (rec.severityNumber !== 0) tags.severity_number = String(rec.severityNumber);
    }
    if (rec.traceId !== '') tags.trace_id = rec.traceId;
    if (rec.spanId !== '') tags.span_id = rec.spanId;
    if (rec.eventName !== '') tags.event_name = rec.eventName;

    const body = rec.body;
    const message = typeof body === 'string' ? body : body === null ? '' : valueToJson(body);
    const timestampNs = rec.timeNs !== 0n ? rec.timeNs : rec.observedNs !== 0n ? rec.observedNs : this.nowNs;

    const problem =
      checkLogLine(message, this.limits) ??
      this.checkTags(tags) ??
      (rec.timeError !== '' ? { reason: 'invalid_timestamp', message: rec.timeError } : this.bounds.checkNs(timestampNs));
    if (problem !== undefined) {
      const who = tags.service_name !== undefined ? ` (service_name=${JSON.stringify(tags.service_name)})` : '';
      const where = `log record resourceLogs[${ri}].scopeLogs[${si}].logRecords[${li}]${who}`;
      this.rejections.reject(1, problem.reason, `${where}: ${problem.message}`);
      return;
    }
    this.records.push({ timestampNs, message, level, tags });
  }

  /**
   * checkTags checks the tags that will form the record's stream (the indexed ones) as stream
   * labels, and the others as line attributes, as Loki checks stream labels and structured
   * metadata.
   */
  private checkTags(tags: Record<string, string>): Problem | undefined {
    let stream: Record<string, string> | undefined;
    const names: string[] = [];
    const values: string[] = [];
    for (const name in tags) {
      if (this.streamTags.has(name)) setLabel((stream ??= {}), name, tags[name]);
      else {
        names.push(name);
        values.push(tags[name]);
      }
    }
    return (stream && checkStreamLabels(stream, this.limits)) ?? checkLineAttributes(names, values, this.limits);
  }

  /** result returns the decoded entries and the rejections. */
  result(): DecodeResult<LogEntry> {
    return {
      records: this.records,
      rejected: this.rejections.count,
      discarded: this.rejections.byReason,
      errors: this.rejections.errors(),
    };
  }
}
