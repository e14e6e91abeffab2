import type { IngestLimits } from '../../engine/ingest/types.js';
import { parseSettingByteSize } from '../../engine/common/byteSize.js';
import type { Config } from '../config.js';
import { MAX_RETENTION_DAYS } from './retentionDays.js';

/**
 * The settings an org may hold for itself, each falling back to a service-wide SVC_* default,
 * as Mimir's and Loki's runtime overrides do per tenant. ORG_SETTINGS is the single table of
 * them: the metadata store validates against it, the CLI derives its flags from it, the admin
 * API its JSON fields, the README its "Orgs and limits" table, and the ingest, query and
 * retention paths read their values through it. Adding a setting is adding one row (and, if
 * its subsystem does not yet read the field it names, teaching that subsystem the field).
 *
 * Stored, an org's settings are a flat map of name to number, so a relational backend keeps
 * them as rows of (org_id, name, value) without a schema change per setting.
 */

/** QueryLimits are the per-query bounds the query paths read for the org that asks. */
export interface QueryLimits {
  /** queries the org may run at once; more wait in its queue */
  maxConcurrentQueries: number;
  /** queries that may wait for a slot; more get 429 */
  maxQueuedQueries: number;
  /** samples one query slice may hold on a worker */
  maxSamples: number;
  /** memory one query may use on a worker */
  memoryBytes: number;
  /** series one log metric query may hold on a worker */
  maxSeries: number;
  /** rows a raw log query returns when the request gives no limit */
  defaultLogLimit: number;
  /** largest limit a raw log query may ask for */
  maxLogLimit: number;
  /** deadline of one query */
  timeoutMs: number;
}

/** Signal is what retention distinguishes: metric samples and log lines. */
export type RetentionSignal = 'metrics' | 'logs';

/**
 * SettingConfigKey is a Config field a setting's default may be: a number, or a boolean for a
 * switch (stored as 1 for on, 0 for off, so every stored setting stays a number).
 */
type SettingConfigKey = { [K in keyof Config]: Config[K] extends number | boolean ? K : never }[keyof Config];

/**
 * Unit says how a value is read and shown: `bytes` also takes KiB, MiB and GiB; a `switch` is
 * 1 (on) or 0 (off), and also takes true/false, on/off and yes/no.
 */
export type SettingUnit = 'days' | 'count' | 'bytes' | 'characters' | 'ms' | 'switch';

interface RowBase {
  /** name is the stored key and the admin API's JSON field. */
  name: string;
  /** flag is the `sluice orgs set` option, without the dashes. */
  flag: string;
  /** env is the SVC_* variable whose value applies when the org has none. */
  env: string;
  /** defaultKey is the Config field that variable is read into. */
  defaultKey: SettingConfigKey;
  unit: SettingUnit;
  min: number;
  max: number;
  /** doc says what the setting bounds; README and --help show it. */
  doc: string;
  /** error is what a client sees when the setting refuses it. */
  error: string;
}

/**
 * A row names the one field of its subsystem it sets. Retention rows with `fallback` follow
 * another setting of the same org before the service default (metrics retention falls back on
 * the org's single retention, which falls back on SVC_RETENTION_DAYS).
 */
export type OrgSettingRow = RowBase &
  (
    | { subsystem: 'retention'; signal: RetentionSignal | 'both'; fallback?: string }
    | { subsystem: 'ingest'; field: keyof IngestLimits }
    | { subsystem: 'query'; field: keyof QueryLimits }
  );

const TOO_OLD = 'an older sample or line is refused: 400 naming `too_old` (remote_write, Loki push) or an OTLP partial success; queries return nothing older';

export const ORG_SETTINGS = [
  {
    name: 'retentionDays',
    flag: 'retention-days',
    env: 'SVC_RETENTION_DAYS',
    defaultKey: 'retentionDays',
    unit: 'days',
    min: 0,
    max: MAX_RETENTION_DAYS,
    subsystem: 'retention',
    signal: 'both',
    doc: 'Days of the org\'s data kept, logs and metrics alike unless set per signal below; 0 keeps them forever.',
    error: TOO_OLD,
  },
  {
    name: 'retentionMetricsDays',
    flag: 'retention-metrics-days',
    env: 'SVC_RETENTION_DAYS',
    defaultKey: 'retentionDays',
    unit: 'days',
    min: 0,
    max: MAX_RETENTION_DAYS,
    subsystem: 'retention',
    signal: 'metrics',
    fallback: 'retentionDays',
    doc: 'Days of the org\'s metric samples kept (0: forever); unset, the org\'s retentionDays applies.',
    error: TOO_OLD,
  },
  {
    name: 'retentionLogsDays',
    flag: 'retention-logs-days',
    env: 'SVC_RETENTION_DAYS',
    defaultKey: 'retentionDays',
    unit: 'days',
    min: 0,
    max: MAX_RETENTION_DAYS,
    subsystem: 'retention',
    signal: 'logs',
    fallback: 'retentionDays',
    doc: 'Days of the org\'s log lines kept (0: forever); unset, the org\'s retentionDays applies.',
    error: TOO_OLD,
  },
  {
    name: 'maxSeries',
    flag: 'max-series',
    env: 'SVC_MAX_SERIES_PER_ORG',
    defaultKey: 'maxSeriesPerOrg',
    unit: 'count',
    min: 0,
    max: 1_000_000_000,
    subsystem: 'ingest',
    field: 'maxActiveSeries',
    doc: 'Active metric series the org may have (0: no limit).',
    error: '400 naming `series_limit` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxStreams',
    flag: 'max-streams',
    env: 'SVC_MAX_STREAMS_PER_ORG',
    defaultKey: 'maxStreamsPerOrg',
    unit: 'count',
    min: 0,
    max: 1_000_000_000,
    subsystem: 'ingest',
    field: 'maxActiveStreams',
    doc: 'Active log streams the org may have (0: no limit).',
    error: '400 naming `stream_limit` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLabelsPerSeries',
    flag: 'max-labels-per-series',
    env: 'SVC_MAX_LABELS_PER_SERIES',
    defaultKey: 'maxLabelsPerSeries',
    unit: 'count',
    min: 1,
    max: 10_000,
    subsystem: 'ingest',
    field: 'maxLabelsPerSeries',
    doc: 'Labels a metric series may have, `__name__` included.',
    error: '400 naming `max_label_names_per_series` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLabelsPerStream',
    flag: 'max-labels-per-stream',
    env: 'SVC_MAX_LABELS_PER_STREAM',
    defaultKey: 'maxLabelsPerStream',
    unit: 'count',
    min: 1,
    max: 10_000,
    subsystem: 'ingest',
    field: 'maxLabelsPerStream',
    doc: 'Labels a log stream may have.',
    error: '400 naming `max_label_names_per_stream` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLabelNameLength',
    flag: 'max-label-name-length',
    env: 'SVC_MAX_LABEL_NAME_LENGTH',
    defaultKey: 'maxLabelNameLength',
    unit: 'characters',
    min: 1,
    max: 1_000_000,
    subsystem: 'ingest',
    field: 'maxLabelNameLength',
    doc: 'Characters of a label or log attribute name.',
    error: '400 naming `label_name_too_long` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLabelValueLength',
    flag: 'max-label-value-length',
    env: 'SVC_MAX_LABEL_VALUE_LENGTH',
    defaultKey: 'maxLabelValueLength',
    unit: 'characters',
    min: 1,
    max: 10_000_000,
    subsystem: 'ingest',
    field: 'maxLabelValueLength',
    doc: 'Characters of a metric label value or log stream label value.',
    error: '400 naming `label_value_too_long` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLineBytes',
    flag: 'max-line-bytes',
    env: 'SVC_MAX_LINE_BYTES',
    defaultKey: 'maxLineBytes',
    unit: 'bytes',
    min: 1024,
    max: 1024 ** 3,
    subsystem: 'ingest',
    field: 'maxLogLineBytes',
    doc: 'UTF-8 bytes of one log line.',
    error: '400 naming `line_too_long` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLineAttributes',
    flag: 'max-line-attributes',
    env: 'SVC_MAX_LINE_ATTRIBUTES',
    defaultKey: 'maxLineAttributes',
    unit: 'count',
    min: 0,
    max: 100_000,
    subsystem: 'ingest',
    field: 'maxLineAttributes',
    doc: 'Attributes a log line may carry besides its stream labels.',
    error: '400 naming `max_line_attributes` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'maxLineAttributesBytes',
    flag: 'max-line-attributes-bytes',
    env: 'SVC_MAX_LINE_ATTRIBUTES_BYTES',
    defaultKey: 'maxLineAttributesBytes',
    unit: 'bytes',
    min: 1024,
    max: 1024 ** 3,
    subsystem: 'ingest',
    field: 'maxLineAttributesBytes',
    doc: 'UTF-8 bytes of a log line\'s attribute names and values together.',
    error: '400 naming `line_attributes_too_large` (remote_write, Loki push; the rest of the request is stored) or an OTLP partial success naming it',
  },
  {
    name: 'discoverLogLevels',
    flag: 'discover-log-levels',
    env: 'SVC_DISCOVER_LOG_LEVELS',
    defaultKey: 'discoverLogLevels',
    unit: 'switch',
    min: 0,
    max: 1,
    subsystem: 'ingest',
    field: 'discoverLogLevels',
    doc: 'Whether a Loki-pushed line that names no level gets `detected_level` and the `level` that follows from it (1, as Loki\'s discover_log_levels by default) or neither (0).',
    error: '(none: the line is stored either way)',
  },
  {
    name: 'ingestSamplesPerSecond',
    flag: 'ingest-samples-per-second',
    env: 'SVC_INGEST_SAMPLES_PER_SECOND',
    defaultKey: 'ingestSamplesPerSecond',
    unit: 'count',
    min: 0,
    max: 1_000_000_000,
    subsystem: 'ingest',
    field: 'ingestSamplesPerSecond',
    doc: 'Samples per second the org may write over remote write and OTLP together (a token bucket); 0: no limit.',
    error: '429 RATE_LIMITED with Retry-After naming `rate_limited`; the request is refused whole',
  },
  {
    name: 'ingestSamplesBurst',
    flag: 'ingest-samples-burst',
    env: 'SVC_INGEST_SAMPLES_BURST',
    defaultKey: 'ingestSamplesBurst',
    unit: 'count',
    min: 1,
    max: 1_000_000_000,
    subsystem: 'ingest',
    field: 'ingestSamplesBurst',
    doc: 'Samples the org may write at once after a pause: the bucket size, so also the largest request that can pass.',
    error: '429 RATE_LIMITED saying the request is larger than the burst',
  },
  {
    name: 'ingestLogBytesPerSecond',
    flag: 'ingest-log-bytes-per-second',
    env: 'SVC_INGEST_LOG_BYTES_PER_SECOND',
    defaultKey: 'ingestLogBytesPerSecond',
    unit: 'bytes',
    min: 0,
    max: 1024 ** 4,
    subsystem: 'ingest',
    field: 'ingestLogBytesPerSecond',
    doc: 'UTF-8 bytes of log lines per second the org may write over Loki push and OTLP together (a token bucket); 0: no limit.',
    error: '429 RATE_LIMITED with Retry-After naming `rate_limited`; the request is refused whole',
  },
  {
    name: 'ingestLogBurstBytes',
    flag: 'ingest-log-burst-bytes',
    env: 'SVC_INGEST_LOG_BURST_BYTES',
    defaultKey: 'ingestLogBurstBytes',
    unit: 'bytes',
    min: 1,
    max: 1024 ** 4,
    subsystem: 'ingest',
    field: 'ingestLogBurstBytes',
    doc: 'Log bytes the org may write at once after a pause: the bucket size, so also the largest request that can pass.',
    error: '429 RATE_LIMITED saying the request is larger than the burst',
  },
  {
    name: 'maxConcurrentQueries',
    flag: 'max-concurrent-queries',
    env: 'SVC_MAX_QUERIES_PER_ORG',
    defaultKey: 'maxQueriesPerOrg',
    unit: 'count',
    min: 1,
    max: 100_000,
    subsystem: 'query',
    field: 'maxConcurrentQueries',
    doc: 'Queries the org may run at once; more wait in its queue (maxQueuedQueries).',
    error: 'none while the queue has room; then 429 RATE_LIMITED with Retry-After',
  },
  {
    name: 'maxQueuedQueries',
    flag: 'max-queued-queries',
    env: 'SVC_MAX_QUEUED_QUERIES_PER_ORG',
    defaultKey: 'maxQueuedQueriesPerOrg',
    unit: 'count',
    min: 0,
    max: 1_000_000,
    subsystem: 'query',
    field: 'maxQueuedQueries',
    doc: 'Queries that wait, first come first served, for one of the org\'s concurrent slots, each at most its deadline; 0: none wait.',
    error: '429 RATE_LIMITED with Retry-After when the queue is full or the wait passes the deadline',
  },
  {
    name: 'maxSamplesPerQuery',
    flag: 'max-samples-per-query',
    env: 'SVC_MAX_SAMPLES',
    defaultKey: 'maxSamples',
    unit: 'count',
    min: 1000,
    max: 2_000_000_000,
    subsystem: 'query',
    field: 'maxSamples',
    doc: 'Samples one query slice may hold in memory.',
    error: '400 VALIDATION_FAILED, or `done` with status error once streaming',
  },
  {
    name: 'maxQueryBytes',
    flag: 'max-query-bytes',
    env: 'SVC_QUERY_MEMORY_BYTES',
    defaultKey: 'queryMemoryBytes',
    unit: 'bytes',
    min: 1024,
    max: 64 * 1024 ** 3,
    subsystem: 'query',
    field: 'memoryBytes',
    doc: 'Memory one query may use on a worker.',
    error: '400 VALIDATION_FAILED, or `done` with status error once streaming',
  },
  {
    name: 'maxSeriesPerQuery',
    flag: 'max-series-per-query',
    env: 'SVC_MAX_SERIES_PER_QUERY',
    defaultKey: 'maxSeriesPerQuery',
    unit: 'count',
    min: 1,
    max: 100_000_000,
    subsystem: 'query',
    field: 'maxSeries',
    doc: 'Series one log metric query may hold on a worker.',
    error: '400 VALIDATION_FAILED, or `done` with status error once streaming',
  },
  {
    name: 'defaultLogLimit',
    flag: 'default-log-limit',
    env: 'SVC_DEFAULT_LOG_LIMIT',
    defaultKey: 'defaultLogLimit',
    unit: 'count',
    min: 1,
    max: 10_000_000,
    subsystem: 'query',
    field: 'defaultLogLimit',
    doc: 'Rows a raw log query returns when it gives no limit (at most the maximum below).',
    error: '(none: fewer rows)',
  },
  {
    name: 'maxLogLimit',
    flag: 'max-log-limit',
    env: 'SVC_MAX_LOG_LIMIT',
    defaultKey: 'maxLogLimit',
    unit: 'count',
    min: 1,
    max: 10_000_000,
    subsystem: 'query',
    field: 'maxLogLimit',
    doc: 'Largest limit a raw log query may ask for.',
    error: '400 VALIDATION_FAILED naming the limit',
  },
  {
    name: 'queryTimeoutMs',
    flag: 'query-timeout-ms',
    env: 'SVC_QUERY_TIMEOUT_MS',
    defaultKey: 'queryTimeoutMs',
    unit: 'ms',
    min: 1,
    max: 3_600_000,
    subsystem: 'query',
    field: 'timeoutMs',
    doc: 'Deadline of one query.',
    error: '504 DEADLINE_EXCEEDED, or `done` with status error once streaming',
  },
] as const satisfies readonly OrgSettingRow[];

export type OrgSettingName = (typeof ORG_SETTINGS)[number]['name'];

/** OrgSettings are the values an org set for itself; a missing name follows its default. */
export type OrgSettings = Partial<Record<OrgSettingName, number>>;

/** OrgSettingsChange sets the given names; null removes the org's own value. */
export type OrgSettingsChange = Partial<Record<OrgSettingName, number | null>>;

const ROWS: readonly OrgSettingRow[] = ORG_SETTINGS;
const BY_NAME = new Map<string, OrgSettingRow>(ROWS.map((row) => [row.name, row]));

/** settingRow finds a row by its stored name. */
export function settingRow(name: string): OrgSettingRow | undefined {
  return BY_NAME.get(name);
}

/** isOrgSettingName tells whether `name` is a known setting. */
export function isOrgSettingName(name: string): name is OrgSettingName {
  return BY_NAME.has(name);
}

/** settingProblem says why `value` cannot be stored for `row`, or undefined when it can. */
export function settingProblem(row: OrgSettingRow, value: unknown): string | undefined {
  if (row.unit === 'switch') return value === 0 || value === 1 ? undefined : `${row.name} must be 1 (on) or 0 (off), got ${JSON.stringify(value)}`;
  const unit = unitWord(row.unit);
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${row.name} must be a whole number${unit === '' ? '' : ` of ${unit}`}, got ${JSON.stringify(value)}`;
  if (value < row.min || value > row.max) return `${row.name} must be from ${row.min} to ${row.max}${unit === '' ? '' : ` ${unit}`}, got ${value}`;
  return undefined;
}

function unitWord(unit: SettingUnit): string {
  return unit === 'count' ? '' : unit === 'ms' ? 'milliseconds' : unit;
}

/**
 * parseSettingText reads a value as the CLI receives it: a whole number, or for bytes a size
 * such as 512KiB. Returns the number or a problem; bounds are checked by settingProblem.
 */
export function parseSettingText(row: OrgSettingRow, text: string): number | { problem: string } {
  if (row.unit === 'switch') {
    const on = switchValue(text);
    return on === undefined ? { problem: `--${row.flag} must be on or off (true/false, 1/0) or 'default', got ${JSON.stringify(text)}` } : on;
  }
  const value = row.unit === 'bytes' ? parseSettingByteSize(text) : wholeNumber(text);
  if (value === undefined) {
    const unit = unitWord(row.unit);
    const shape = row.unit === 'bytes' ? 'a byte size such as 1048576 or 512KiB' : `a whole number${unit === '' ? '' : ` of ${unit}`}`;
    return { problem: `--${row.flag} must be ${shape} or 'default', got ${JSON.stringify(text)}` };
  }
  return value;
}

/** switchValue reads a switch as the CLI or a JSON body gives it: 1 or 0, undefined when `value` is neither on nor off. */
export function switchValue(value: unknown): 0 | 1 | undefined {
  if (value === true || value === 1) return 1;
  if (value === false || value === 0) return 0;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(word)) return 1;
  if (['0', 'false', 'off', 'no'].includes(word)) return 0;
  return undefined;
}

/** wholeNumber reads the digits of a count or duration setting; undefined when `text` is not one. */
function wholeNumber(text: string): number | undefined {
  const match = /^\s*(\d+)\s*$/.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** serviceDefault is the value a row takes from the service configuration. */
export function serviceDefault(row: OrgSettingRow, config: Config): number {
  const value = config[row.defaultKey];
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
