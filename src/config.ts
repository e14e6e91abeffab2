import os from 'node:os';
import path from 'node:path';
// The leaf module, not the engine's index: every CLI command loads this file.
import { parseSettingByteSize } from '../engine/common/byteSize.js';
import { DEFAULT_INDEXED_TAGS } from '../engine/storage/logHead.js';
import { DEFAULT_PROMQL_FEATURES, PROMQL_FEATURES, isPromQLFeature, type PromQLFeature } from '../engine/promql/features.js';
import { MIN_KEY_LENGTH, weakKeyReason } from './auth/keyStrength.js';
import { MAX_RETENTION_DAYS } from './meta/retentionDays.js';
import { parseUrl } from './postgres/url.js';
import { ROLES, ROLE_TABLE, isRole, type Role } from './roles/roles.js';
import { cacheBudgetBytes, cacheShare } from './cacheBudget.js';

/**
 * Configuration comes only from environment variables with the SVC_ prefix, so a container,
 * a systemd unit and a laptop all configure Sluice the same way. SETTINGS is the single table
 * of them: README's configuration table and `sluice serve --help` are generated from it, and
 * loadConfig validates every value so a typo stops start-up with the variable's name instead
 * of surfacing as odd behaviour later.
 */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  role: Role;
  roleEmbedded: boolean;
  logLevel: LogLevel;
  maxBodyBytes: number;
  dashboardMaxBodyBytes: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  authFailuresPerMinute: number;
  shutdownTimeoutMs: number;
  mcpApiKey: string | undefined;
  bootstrapOrg: string | undefined;
  bootstrapApiKey: string | undefined;
  metricsRequireKey: boolean;
  queryTimeoutMs: number;
  mcpCallTimeoutMs: number;
  mcpUpstreamTimeoutMs: number;
  heartbeatMs: number;
  httpCompression: boolean;
  sseBufferBytes: number;
  sseStallTimeoutMs: number;
  queryWorkers: number;
  queryShardMinSamples: number;
  queryInlineMaxSamples: number;
  queryInlineMaxLines: number;
  queryRawTaskRows: number;
  queryMemoryBytes: number;
  resultsCache: boolean;
  cacheMemoryBytes: number;
  resultsCacheBytes: number;
  resultsCacheMaxFreshnessMs: number;
  resultsCacheSplitMs: number;
  maxQueriesPerOrg: number;
  maxQueuedQueriesPerOrg: number;
  queryBacklogPerWorker: number;
  maxQueriesWaitingForWorkers: number;
  /** maxConcurrentQueries bounds the queries evaluating at once across orgs; 0 derives it from the workers (`concurrentQueryCap`). */
  maxConcurrentQueries: number;
  defaultMaxDataPoints: number;
  maxPointsPerSeries: number;
  maxSamples: number;
  defaultLogLimit: number;
  maxLogLimit: number;
  maxSeriesPerQuery: number;
  maxSeriesPerOrg: number;
  maxStreamsPerOrg: number;
  maxLabelsPerSeries: number;
  maxLabelsPerStream: number;
  maxLabelNameLength: number;
  maxLabelValueLength: number;
  maxLineBytes: number;
  maxLineAttributes: number;
  maxLineAttributesBytes: number;
  discoverLogLevels: boolean;
  ingestSamplesPerSecond: number;
  ingestSamplesBurst: number;
  ingestLogBytesPerSecond: number;
  ingestLogBurstBytes: number;
  ingestRateStrategy: 'global' | 'local';
  maxExemplarsPerOrg: number;
  createdTimestampZeroIngestion: boolean;
  otlpExponentialHistograms: 'native' | 'classic';
  promqlFeatures: PromQLFeature[];
  headMaxBytes: number;
  headMaxAgeMs: number;
  segmentTargetBytes: number;
  segmentCacheBytes: number;
  workerSegmentCacheBytes: number;
  workerAllocationProfileDir: string | undefined;
  retentionDays: number;
  compactionIntervalMs: number;
  indexedTags: string[];
  blobStore: 'local' | 's3';
  s3Endpoint: string | undefined;
  s3Bucket: string | undefined;
  s3Region: string;
  s3Prefix: string;
  s3ForcePathStyle: boolean;
  s3CacheDir: string | undefined;
  s3CacheBytes: number;
  s3MultipartBytes: number;
  metaStore: 'file' | 'postgres';
  catalogStore: 'file' | 'postgres';
  catalogName: string;
  postgresUrl: string | undefined;
  postgresHost: string | undefined;
  postgresPort: number | undefined;
  postgresUser: string | undefined;
  postgresPassword: string | undefined;
  postgresPasswordFile: string | undefined;
  postgresDatabase: string | undefined;
  postgresPoolSize: number;
  postgresStatementTimeoutMs: number;
  writeLog: 'wal' | 'jetstream';
  writeLogPartitions: number;
  natsUrls: string[];
  natsStream: string;
  natsReplicas: number;
  natsAckTimeoutMs: number;
  writeLogTrim: boolean;
  natsMaxAgeMs: number;
  natsMaxBytes: number;
  natsUser: string | undefined;
  natsPassword: string | undefined;
  natsToken: string | undefined;
  natsCredsFile: string | undefined;
  advertiseUrl: string | undefined;
  partitionLeaseMs: number;
  compactorLockRetryMs: number;
  orphanSegmentGraceMs: number;
  ingesterUrls: string[];
  internalToken: string | undefined;
  headFetchTimeoutMs: number;
  headFetchMaxBytes: number;
  partitionOwnersCacheMs: number;
}

class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
export { ConfigError };

interface Setting<K extends keyof Config> {
  env: string;
  key: K;
  /** defaultText is what README and --help show as the default. */
  defaultText: string;
  doc: string;
  parse(raw: string | undefined, env: NodeJS.ProcessEnv): Config[K];
}

function integer(name: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function number(name: string, raw: string, min: number): number {
  const n = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`${name} must be a number, got "${raw}"`);
  if (n < min) throw new ConfigError(`${name} must be at least ${min}, got ${n}`);
  return n;
}

/** byteSize reads `1048576`, `512KiB`, `16MiB` or `10MB`. */
function byteSize(name: string, raw: string): number {
  const n = parseSettingByteSize(raw);
  if (n === undefined) {
    throw new ConfigError(`${name} must be a byte size such as 1048576, 512KiB or 16MiB, got "${raw}"`);
  }
  if (n < 1024) throw new ConfigError(`${name} must be at least 1KiB, got "${raw}"`);
  return n;
}

/** byteRate reads a byte size as byteSize does, or 0 for "no limit". */
function byteRate(name: string, raw: string): number {
  return raw.trim() === '0' ? 0 : byteSize(name, raw);
}

function boolean(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** LABEL_NAME is what a tag name must look like to be indexed (the Prometheus label name rule). */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** tagList reads a comma-separated list of tag names. */
function tagList(name: string, raw: string): string[] {
  const tags = raw.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (tags.length === 0) throw new ConfigError(`${name} must list at least one tag name`);
  const bad = tags.filter((t) => !LABEL_NAME.test(t));
  if (bad.length > 0) throw new ConfigError(`${name} has invalid tag names: ${bad.join(', ')}`);
  return [...new Set(tags)];
}

/** promqlFeatureList reads a comma-separated list of PromQL feature flags. */
function promqlFeatureList(name: string, raw: string): PromQLFeature[] {
  const names = raw.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const bad = names.filter((n) => !isPromQLFeature(n));
  if (bad.length > 0) throw new ConfigError(`${name} has unknown features: ${bad.join(', ')} (known: ${Object.keys(PROMQL_FEATURES).join(', ')})`);
  return [...new Set(names)] as PromQLFeature[];
}

function optionalSecret(raw: string | undefined): string | undefined {
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** apiKeySetting reads an operator-chosen key, refusing placeholders and weak keys (see keyStrength). */
function apiKeySetting(name: string, raw: string | undefined): string | undefined {
  const v = optionalSecret(raw);
  const reason = v === undefined ? undefined : weakKeyReason(v);
  if (reason !== undefined) throw new ConfigError(`${name} ${reason}`);
  return v;
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type AnySetting = { [K in keyof Config]: Setting<K> }[keyof Config];

/**
 * DEFAULT_SSE_STALL_TIMEOUT_MS stays under uWebSockets.js' own send timeout (10 s, checked every
 * 4 s), so a stalled client is cancelled by the stream's timer, counted as stalled and cleaned up
 * by the query, rather than cut by the socket layer first.
 */
export const DEFAULT_SSE_STALL_TIMEOUT_MS = 8_000;

export const SETTINGS: AnySetting[] = [
  {
    env: 'SVC_PORT',
    key: 'port',
    defaultText: '8080',
    doc: 'TCP port to listen on (0 picks a free port).',
    parse: (raw) => (raw === undefined ? 8080 : integer('SVC_PORT', raw, 0, 65535)),
  },
  {
    env: 'SVC_HOST',
    key: 'host',
    defaultText: '0.0.0.0',
    doc: 'Address to listen on; 127.0.0.1 keeps the service local.',
    parse: (raw) => {
      const v = raw === undefined ? '0.0.0.0' : raw.trim();
      if (v === '') throw new ConfigError('SVC_HOST must not be empty');
      return v;
    },
  },
  {
    env: 'SVC_DATA_DIR',
    key: 'dataDir',
    defaultText: './data',
    doc: 'Directory of the embedded storage: metadata (orgs, keys, dashboards), WAL and segments.',
    parse: (raw) => path.resolve(raw === undefined || raw.trim() === '' ? 'data' : raw.trim()),
  },
  {
    env: 'SVC_ROLE',
    key: 'role',
    defaultText: 'all',
    doc: `What this process does (also \`sluice serve --role\`): ${ROLES.map((r) => `\`${r}\` (${ROLE_TABLE[r].summary})`).join('; ')}. Every role but all needs the shared backends (see "Operating at scale").`,
    parse: (raw) => {
      const v = (raw ?? 'all').trim().toLowerCase();
      if (!isRole(v)) throw new ConfigError(`SVC_ROLE must be one of ${ROLES.join(', ')}, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_ROLE_EMBEDDED',
    key: 'roleEmbedded',
    defaultText: 'false',
    doc: 'When true, a role other than all starts over the embedded backends (WAL, catalog and metadata in SVC_DATA_DIR) instead of refusing: the process then sees only its own data directory, so this is for trying one role alone on one machine, never for running several.',
    parse: (raw) => (raw === undefined ? false : boolean('SVC_ROLE_EMBEDDED', raw)),
  },
  {
    env: 'SVC_LOG_LEVEL',
    key: 'logLevel',
    defaultText: 'info',
    doc: `Log level: ${LOG_LEVELS.join(', ')}.`,
    parse: (raw) => {
      const v = (raw ?? 'info').trim().toLowerCase();
      if (!LOG_LEVELS.includes(v as LogLevel)) {
        throw new ConfigError(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
      }
      return v as LogLevel;
    },
  },
  {
    env: 'SVC_MAX_BODY_BYTES',
    key: 'maxBodyBytes',
    defaultText: '16MiB',
    doc: 'Largest request body accepted (after decompression); larger ones get 413 PAYLOAD_TOO_LARGE.',
    parse: (raw) => (raw === undefined ? 16 * 1024 * 1024 : byteSize('SVC_MAX_BODY_BYTES', raw)),
  },
  {
    env: 'SVC_DASHBOARD_MAX_BODY_BYTES',
    key: 'dashboardMaxBodyBytes',
    defaultText: '1MiB',
    doc: 'Largest dashboard spec accepted by create, replace and validate, in place of SVC_MAX_BODY_BYTES; larger ones get 413 PAYLOAD_TOO_LARGE.',
    parse: (raw) => (raw === undefined ? 1024 * 1024 : byteSize('SVC_DASHBOARD_MAX_BODY_BYTES', raw)),
  },
  {
    env: 'SVC_RATE_LIMIT_RPS',
    key: 'rateLimitPerSecond',
    defaultText: '0 (off)',
    doc: 'Requests per second allowed per API key (token bucket); 0 disables rate limiting.',
    parse: (raw) => (raw === undefined ? 0 : number('SVC_RATE_LIMIT_RPS', raw, 0)),
  },
  {
    env: 'SVC_RATE_LIMIT_BURST',
    key: 'rateLimitBurst',
    defaultText: 'max(1, SVC_RATE_LIMIT_RPS)',
    doc: 'Bucket size: how many requests a key may send at once before the rate applies.',
    parse: (raw, env) => {
      if (raw !== undefined) return integer('SVC_RATE_LIMIT_BURST', raw, 1, 1_000_000_000);
      const rps = env.SVC_RATE_LIMIT_RPS === undefined ? 0 : Number(env.SVC_RATE_LIMIT_RPS);
      return Math.max(1, Math.ceil(Number.isFinite(rps) ? rps : 1));
    },
  },
  {
    env: 'SVC_AUTH_FAILURES_PER_MINUTE',
    key: 'authFailuresPerMinute',
    defaultText: '30',
    doc: 'Failed authentications one client address may have per minute (a bucket of this size, refilled over a minute); beyond it they get 429 RATE_LIMITED with Retry-After instead of 401. Valid keys are never limited by it. 0 disables.',
    parse: (raw) => (raw === undefined ? 30 : integer('SVC_AUTH_FAILURES_PER_MINUTE', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_SHUTDOWN_TIMEOUT_MS',
    key: 'shutdownTimeoutMs',
    defaultText: '10000',
    doc: 'On SIGTERM/SIGINT, how long in-flight requests may take to finish before exit.',
    parse: (raw) => (raw === undefined ? 10_000 : integer('SVC_SHUTDOWN_TIMEOUT_MS', raw, 0, 3_600_000)),
  },
  {
    env: 'SVC_MCP_API_KEY',
    key: 'mcpApiKey',
    defaultText: '(unset: disabled)',
    doc: `System key with cross-org access for the tool gateway; treat as an admin token (32+ bytes of entropy). Refused at start when shorter than ${MIN_KEY_LENGTH} characters, a placeholder (the manifest's, or containing change-me, replace-me, example...) or made of fewer than 8 different characters.`,
    parse: (raw) => apiKeySetting('SVC_MCP_API_KEY', raw),
  },
  {
    env: 'SVC_BOOTSTRAP_ORG',
    key: 'bootstrapOrg',
    defaultText: '(unset)',
    doc: 'Org that start-up ensures exists: a UUID is used as the org id, anything else as its name.',
    parse: (raw) => optionalSecret(raw),
  },
  {
    env: 'SVC_BOOTSTRAP_API_KEY',
    key: 'bootstrapApiKey',
    defaultText: '(unset)',
    doc: `API key that start-up ensures exists for SVC_BOOTSTRAP_ORG; the same rules as SVC_MCP_API_KEY (${MIN_KEY_LENGTH}+ characters, no placeholder).`,
    parse: (raw, env) => {
      const v = apiKeySetting('SVC_BOOTSTRAP_API_KEY', raw);
      if (v !== undefined && optionalSecret(env.SVC_BOOTSTRAP_ORG) === undefined) {
        throw new ConfigError('SVC_BOOTSTRAP_API_KEY needs SVC_BOOTSTRAP_ORG to name its org');
      }
      return v;
    },
  },
  {
    env: 'SVC_METRICS_REQUIRE_KEY',
    key: 'metricsRequireKey',
    defaultText: 'false',
    doc: 'When true, GET /metrics needs an API key like every other route.',
    parse: (raw) => (raw === undefined ? false : boolean('SVC_METRICS_REQUIRE_KEY', raw)),
  },
  {
    env: 'SVC_QUERY_TIMEOUT_MS',
    key: 'queryTimeoutMs',
    defaultText: '60000',
    doc: 'Per-query deadline: 504 DEADLINE_EXCEEDED before the stream starts, `done` with status error after.',
    parse: (raw) => (raw === undefined ? 60_000 : integer('SVC_QUERY_TIMEOUT_MS', raw, 1, 3_600_000)),
  },
  {
    env: 'SVC_MCP_CALL_TIMEOUT_MS',
    key: 'mcpCallTimeoutMs',
    defaultText: '60000',
    doc: 'Deadline of one tool gateway request (MCP tool call, batch included); a tool past it answers with an error.',
    parse: (raw) => (raw === undefined ? 60_000 : integer('SVC_MCP_CALL_TIMEOUT_MS', raw, 100, 3_600_000)),
  },
  {
    env: 'SVC_MCP_UPSTREAM_TIMEOUT_MS',
    key: 'mcpUpstreamTimeoutMs',
    defaultText: '15000',
    doc: 'How long the tool gateway waits for an upstream MCP server (code, issues, chat... integrations) before answering with a tool error.',
    parse: (raw) => (raw === undefined ? 15_000 : integer('SVC_MCP_UPSTREAM_TIMEOUT_MS', raw, 100, 600_000)),
  },
  {
    env: 'SVC_HEARTBEAT_MS',
    key: 'heartbeatMs',
    defaultText: '15000',
    doc: 'Silence after which a query stream sends a heartbeat event.',
    parse: (raw) => (raw === undefined ? 15_000 : integer('SVC_HEARTBEAT_MS', raw, 10, 600_000)),
  },
  {
    env: 'SVC_HTTP_COMPRESSION',
    key: 'httpCompression',
    defaultText: 'true',
    doc: 'Compress query streams and JSON responses of 1 KiB or more with br or gzip when the client\'s Accept-Encoding allows; streams are flushed after every batch, so events still arrive as they are made. false: always identity.',
    parse: (raw) => (raw === undefined ? true : boolean('SVC_HTTP_COMPRESSION', raw)),
  },
  {
    env: 'SVC_SSE_BUFFER_BYTES',
    key: 'sseBufferBytes',
    defaultText: '4MiB',
    doc: 'Bytes of results one query stream holds for its client (worker results not yet written plus text the socket has not taken); past it the query stops pulling results from the workers until the client reads.',
    parse: (raw) => (raw === undefined ? 4 * 1024 * 1024 : byteSize('SVC_SSE_BUFFER_BYTES', raw)),
  },
  {
    env: 'SVC_SSE_STALL_TIMEOUT_MS',
    key: 'sseStallTimeoutMs',
    defaultText: '8000',
    doc: 'How long a query stream waits for a client that takes none of the data waiting for it before the query is cancelled, its connection closed (recorded as 499, outcome `client_stalled`) and its memory freed. uWebSockets.js itself drops a connection that takes nothing for about 10 s after a write it could not send, so values above that have no effect.',
    parse: (raw) => (raw === undefined ? DEFAULT_SSE_STALL_TIMEOUT_MS : integer('SVC_SSE_STALL_TIMEOUT_MS', raw, 100, 3_600_000)),
  },
  {
    env: 'SVC_QUERY_WORKERS',
    key: 'queryWorkers',
    defaultText: 'number of CPU cores',
    doc: 'Worker threads that evaluate query slices in parallel.',
    parse: (raw) => (raw === undefined ? Math.max(1, os.availableParallelism()) : integer('SVC_QUERY_WORKERS', raw, 1, 256)),
  },
  {
    env: 'SVC_QUERY_SHARD_MIN_SAMPLES',
    key: 'queryShardMinSamples',
    defaultText: '100000',
    doc: 'Samples (or log lines) a time slice must read before a query with too few steps to spread over the workers is split into shards instead: the heads\' samples in its ranges, and each segment\'s rows in proportion to the part of its time span the ranges reach. Exact shapes only, split by series: PromQL per-series expressions; expressions whose groups a placement by labels keeps whole (aggregations `by` labels, binary operations between vectors, histogram_quantile); sum/count/min/max/avg/group over either; a range query\'s topk or bottomk with a number for k; queries built on sum/count/avg/min/max/group over all series or `by (le)` (an SLO ratio of sums, histogram_quantile over `sum by (le)`), whose shards evaluate those aggregations and the query front the rest. Split by time: LogQL count_over_time, rate, bytes_over_time, bytes_rate or sum_over_time, alone or under sum, and queries built on those but topk/bottomk. 0: never split.',
    parse: (raw) => (raw === undefined ? 100_000 : integer('SVC_QUERY_SHARD_MIN_SAMPLES', raw, 0, 2_000_000_000)),
  },
  {
    env: 'SVC_QUERY_INLINE_MAX_SAMPLES',
    key: 'queryInlineMaxSamples',
    defaultText: '65536',
    doc: 'A PromQL query evaluated as one time slice whose cost is at most this, all of its data in the in-memory heads (recent data), is evaluated on the thread that answers it instead of a worker: handing such a task to a worker and its answer back costs more than evaluating it (mostly two idle threads woken). The cost is the heads\' samples in its ranges (lookback included, counted as for SVC_QUERY_SHARD_MIN_SAMPLES) plus one per series and step; a query with a subquery, or a range query with quantile_over_time, mad_over_time or double_exponential_smoothing (whose work grows with their windows), always goes to a worker. The default takes an instant 5-minute rate over about 1,500 series, or a 1-hour panel of such a rate at a 15 s step over about 120 series. 0: always on the workers.',
    parse: (raw) => (raw === undefined ? 65_536 : integer('SVC_QUERY_INLINE_MAX_SAMPLES', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_QUERY_INLINE_MAX_LINES',
    key: 'queryInlineMaxLines',
    defaultText: '4096',
    doc: 'SVC_QUERY_INLINE_MAX_SAMPLES for LogQL metric queries: an instant query that reads at most this many log lines, all of them in the in-memory heads, is evaluated on the thread that answers it. Lines cost more than samples (a pipeline may parse each), hence the lower bound. 0: always on the workers.',
    parse: (raw) => (raw === undefined ? 4_096 : integer('SVC_QUERY_INLINE_MAX_LINES', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_QUERY_RAW_TASK_ROWS',
    key: 'queryRawTaskRows',
    defaultText: '5000',
    doc: 'Rows one worker task of a raw log query returns at most; a denser time slice is answered in parts, so a query holds a bounded number of rows in flight whatever the data density.',
    parse: (raw) => (raw === undefined ? 5000 : integer('SVC_QUERY_RAW_TASK_ROWS', raw, 1, 1_000_000)),
  },
  {
    env: 'SVC_QUERY_MEMORY_BYTES',
    key: 'queryMemoryBytes',
    defaultText: '256MiB',
    doc: 'Memory one query may use on a worker: lines and labels it keeps, line_format and label_format output (checked while a template runs), series kept for aggregation, results waiting for its client, and the whole result a tool gateway call collects. Past it the query ends with 400 VALIDATION_FAILED (before the stream) or `done` with status error.',
    parse: (raw) => (raw === undefined ? 256 * 1024 * 1024 : byteSize('SVC_QUERY_MEMORY_BYTES', raw)),
  },
  {
    env: 'SVC_RESULTS_CACHE',
    key: 'resultsCache',
    defaultText: 'true',
    doc: 'Cache the results of PromQL range and instant queries and LogQL metric queries (SSE, the Prometheus and Loki APIs, the tool gateway) in pieces aligned to SVC_RESULTS_CACHE_SPLIT_MS, as Mimir\'s query-frontend does, and evaluate identical queries running at the same time once. A dashboard refresh then evaluates only what is newer than its last one. Late samples drop the pieces they fall in. false: every query is evaluated afresh.',
    parse: (raw) => (raw === undefined ? true : boolean('SVC_RESULTS_CACHE', raw)),
  },
  {
    env: 'SVC_CACHE_MEMORY_BYTES',
    key: 'cacheMemoryBytes',
    defaultText: '30% of the memory limit',
    doc: 'Memory for the caches that make repeated queries fast, split between segment files kept in memory (25%, SVC_SEGMENT_CACHE_BYTES), segments decoded by the query workers (60%, SVC_WORKER_SEGMENT_CACHE_BYTES) and query results (15%, SVC_RESULTS_CACHE_BYTES); each of those settings overrides its share. The memory limit is the cgroup\'s (a container\'s limit) when lower than physical memory. A query whose data is past these caches reads and decodes it again every time.',
    parse: (raw, env) => (raw === undefined ? cacheBudgetBytes(env) : byteSize('SVC_CACHE_MEMORY_BYTES', raw)),
  },
  {
    env: 'SVC_RESULTS_CACHE_BYTES',
    key: 'resultsCacheBytes',
    defaultText: '15% of SVC_CACHE_MEMORY_BYTES',
    doc: 'Memory the results cache may hold (16 bytes a point plus labels), shared by all orgs: past it, the least recently used piece of the org holding the most is dropped, so one org cannot push the others out.',
    parse: (raw, env) => (raw === undefined ? cacheShare(env, 'results') : byteSize('SVC_RESULTS_CACHE_BYTES', raw)),
  },
  {
    env: 'SVC_RESULTS_CACHE_MAX_FRESHNESS_MS',
    key: 'resultsCacheMaxFreshnessMs',
    defaultText: '600000',
    doc: 'Steps newer than this (and the data they read) are never cached (Mimir\'s max_cache_freshness, 10 minutes): recent data still arrives out of order and late.',
    parse: (raw) => (raw === undefined ? 600_000 : integer('SVC_RESULTS_CACHE_MAX_FRESHNESS_MS', raw, 0, 31 * 86_400_000)),
  },
  {
    env: 'SVC_RESULTS_CACHE_SPLIT_MS',
    key: 'resultsCacheSplitMs',
    defaultText: '3600000',
    doc: 'Width of the pieces the results cache keeps, aligned to multiples of it since the Unix epoch: a cached piece is reused by any query whose window covers part of it with the same expression, step and step phase.',
    parse: (raw) => (raw === undefined ? 3_600_000 : integer('SVC_RESULTS_CACHE_SPLIT_MS', raw, 60_000, 31 * 86_400_000)),
  },
  {
    env: 'SVC_MAX_QUERIES_PER_ORG',
    key: 'maxQueriesPerOrg',
    defaultText: '16',
    doc: 'Queries one org may run at once; more wait in its queue (SVC_MAX_QUEUED_QUERIES_PER_ORG), then get 429 RATE_LIMITED.',
    parse: (raw) => (raw === undefined ? 16 : integer('SVC_MAX_QUERIES_PER_ORG', raw, 1, 100_000)),
  },
  {
    env: 'SVC_MAX_QUEUED_QUERIES_PER_ORG',
    key: 'maxQueuedQueriesPerOrg',
    defaultText: '100',
    doc: 'Queries of one org that wait, first come first served, for one of its SVC_MAX_QUERIES_PER_ORG slots (as Mimir\'s max_outstanding_requests_per_tenant), so a dashboard with more panels than slots is answered, not refused. A query waits at most its deadline; past the queue or the wait, 429 RATE_LIMITED. 0: no queue.',
    parse: (raw) => (raw === undefined ? 100 : integer('SVC_MAX_QUEUED_QUERIES_PER_ORG', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_QUERY_BACKLOG_PER_WORKER',
    key: 'queryBacklogPerWorker',
    defaultText: '64',
    doc: 'Query tasks waiting per worker thread past which the workers count as saturated: new queries then wait for admission (SVC_MAX_QUERIES_WAITING_FOR_WORKERS) instead of adding to the backlog.',
    parse: (raw) => (raw === undefined ? 64 : integer('SVC_QUERY_BACKLOG_PER_WORKER', raw, 1, 1_000_000)),
  },
  {
    env: 'SVC_MAX_QUERIES_WAITING_FOR_WORKERS',
    key: 'maxQueriesWaitingForWorkers',
    defaultText: '1000',
    doc: 'Queries of all orgs that wait while the query workers are saturated or every evaluation place is taken; each is let in as the backlog shrinks or a place frees (to the org with the fewest queries evaluating, then first come first served). A query waits at most its deadline; past the queue or the wait, 429 RATE_LIMITED with Retry-After. 0: refuse at once.',
    parse: (raw) => (raw === undefined ? 1000 : integer('SVC_MAX_QUERIES_WAITING_FOR_WORKERS', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_MAX_CONCURRENT_QUERIES',
    key: 'maxConcurrentQueries',
    defaultText: '0 (2 × SVC_QUERY_WORKERS)',
    doc: "Queries of all orgs that evaluate at once (as Prometheus' --query.max-concurrency); more wait in the queue of SVC_MAX_QUERIES_WAITING_FOR_WORKERS, a freed place going to the org with the fewest queries evaluating, so overload delays the newest queries instead of slowing every one. A query holds its place until its last slice is evaluated, and gives it up while its client is behind; an org with more queries paused that way than this cap gets no new query in until one resumes. 0: twice the query workers.",
    parse: (raw) => (raw === undefined ? 0 : integer('SVC_MAX_CONCURRENT_QUERIES', raw, 0, 1_000_000)),
  },
  {
    env: 'SVC_DEFAULT_MAX_DATA_POINTS',
    key: 'defaultMaxDataPoints',
    defaultText: '1000',
    doc: 'Points per series an automatic step aims at when the request gives no maxDataPoints.',
    parse: (raw) => (raw === undefined ? 1000 : integer('SVC_DEFAULT_MAX_DATA_POINTS', raw, 2, 1_000_000)),
  },
  {
    env: 'SVC_MAX_POINTS_PER_SERIES',
    key: 'maxPointsPerSeries',
    defaultText: '11000',
    doc: 'Largest number of steps a query may have (as Prometheus limits resolution); more is 400 VALIDATION_FAILED.',
    parse: (raw) => (raw === undefined ? 11_000 : integer('SVC_MAX_POINTS_PER_SERIES', raw, 2, 10_000_000)),
  },
  {
    env: 'SVC_MAX_SAMPLES',
    key: 'maxSamples',
    defaultText: '50000000',
    doc: 'Samples one query slice may hold in memory; beyond it the query fails cleanly.',
    parse: (raw) => (raw === undefined ? 50_000_000 : integer('SVC_MAX_SAMPLES', raw, 1000, 2_000_000_000)),
  },
  {
    env: 'SVC_MAX_SERIES_PER_ORG',
    key: 'maxSeriesPerOrg',
    defaultText: '1000000',
    doc: 'Active metric series (in the in-memory head) one org may have; samples of further series are refused and reported. 0: no limit.',
    parse: (raw) => (raw === undefined ? 1_000_000 : integer('SVC_MAX_SERIES_PER_ORG', raw, 0, 1_000_000_000)),
  },
  {
    env: 'SVC_MAX_STREAMS_PER_ORG',
    key: 'maxStreamsPerOrg',
    defaultText: '5000',
    doc: 'Active log streams (distinct sets of indexed tags in the in-memory head) one org may have, as Loki\'s max_global_streams_per_user; lines of further streams are refused and reported. 0: no limit.',
    parse: (raw) => (raw === undefined ? 5000 : integer('SVC_MAX_STREAMS_PER_ORG', raw, 0, 1_000_000_000)),
  },
  {
    env: 'SVC_MAX_LABELS_PER_SERIES',
    key: 'maxLabelsPerSeries',
    defaultText: '30',
    doc: 'Labels a metric series may have, `__name__` included (Mimir\'s default); a series with more is rejected with its samples.',
    parse: (raw) => (raw === undefined ? 30 : integer('SVC_MAX_LABELS_PER_SERIES', raw, 1, 10_000)),
  },
  {
    env: 'SVC_MAX_LABELS_PER_STREAM',
    key: 'maxLabelsPerStream',
    defaultText: '15',
    doc: 'Labels a log stream may have (Loki\'s default): a Loki push stream\'s labels, or the indexed tags of an OTLP log record.',
    parse: (raw) => (raw === undefined ? 15 : integer('SVC_MAX_LABELS_PER_STREAM', raw, 1, 10_000)),
  },
  {
    env: 'SVC_MAX_LABEL_NAME_LENGTH',
    key: 'maxLabelNameLength',
    defaultText: '1024',
    doc: 'Characters a label name (metric label, stream label or log attribute name) may have.',
    parse: (raw) => (raw === undefined ? 1024 : integer('SVC_MAX_LABEL_NAME_LENGTH', raw, 1, 1_000_000)),
  },
  {
    env: 'SVC_MAX_LABEL_VALUE_LENGTH',
    key: 'maxLabelValueLength',
    defaultText: '2048',
    doc: 'Characters a metric label value or log stream label value may have (log attribute values are bounded by SVC_MAX_LINE_ATTRIBUTES_BYTES instead).',
    parse: (raw) => (raw === undefined ? 2048 : integer('SVC_MAX_LABEL_VALUE_LENGTH', raw, 1, 10_000_000)),
  },
  {
    env: 'SVC_MAX_LINE_BYTES',
    key: 'maxLineBytes',
    defaultText: '256KiB',
    doc: 'Largest log line (UTF-8 bytes of the message), as Loki\'s max_line_size; a longer line is rejected.',
    parse: (raw) => (raw === undefined ? 256 * 1024 : byteSize('SVC_MAX_LINE_BYTES', raw)),
  },
  {
    env: 'SVC_MAX_LINE_ATTRIBUTES',
    key: 'maxLineAttributes',
    defaultText: '128',
    doc: 'Attributes a log line may carry besides its stream labels (Loki\'s structured metadata entries).',
    parse: (raw) => (raw === undefined ? 128 : integer('SVC_MAX_LINE_ATTRIBUTES', raw, 0, 100_000)),
  },
  {
    env: 'SVC_MAX_LINE_ATTRIBUTES_BYTES',
    key: 'maxLineAttributesBytes',
    defaultText: '64KiB',
    doc: 'Total UTF-8 bytes of the names and values of those attributes (Loki\'s structured metadata size).',
    parse: (raw) => (raw === undefined ? 64 * 1024 : byteSize('SVC_MAX_LINE_ATTRIBUTES_BYTES', raw)),
  },
  {
    env: 'SVC_DISCOVER_LOG_LEVELS',
    key: 'discoverLogLevels',
    defaultText: 'true',
    doc: 'Whether a Loki-pushed line that names no level gets Loki\'s `detected_level` (from level-named fields or the line itself) and the `level` that follows from it, as Loki\'s discover_log_levels; orgs may set their own (`sluice orgs set --discover-log-levels`). Off, such lines carry neither.',
    parse: (raw) => (raw === undefined ? true : boolean('SVC_DISCOVER_LOG_LEVELS', raw)),
  },
  {
    env: 'SVC_INGEST_SAMPLES_PER_SECOND',
    key: 'ingestSamplesPerSecond',
    defaultText: '0 (off)',
    doc: 'Samples per second one org may write over remote write and OTLP together, as Mimir\'s ingestion_rate (a token bucket per org): every sample of a converted series counts, so a classic histogram costs one per bucket plus sum and count. A request with more samples than the bucket holds is refused whole with 429 RATE_LIMITED and Retry-After. 0: no limit.',
    parse: (raw) => (raw === undefined ? 0 : number('SVC_INGEST_SAMPLES_PER_SECOND', raw, 0)),
  },
  {
    env: 'SVC_INGEST_SAMPLES_BURST',
    key: 'ingestSamplesBurst',
    defaultText: '200000',
    doc: 'Samples one org may write at once after a pause (Mimir\'s ingestion_burst_size): the bucket size of SVC_INGEST_SAMPLES_PER_SECOND, so also the largest request that can ever pass.',
    parse: (raw) => (raw === undefined ? 200_000 : integer('SVC_INGEST_SAMPLES_BURST', raw, 1, 1_000_000_000)),
  },
  {
    env: 'SVC_INGEST_LOG_BYTES_PER_SECOND',
    key: 'ingestLogBytesPerSecond',
    defaultText: '0 (off)',
    doc: 'UTF-8 bytes of log lines per second one org may write over Loki push and OTLP together, as Loki\'s ingestion_rate_mb (a token bucket per org); a request with more than the bucket holds is refused whole with 429 RATE_LIMITED and Retry-After. A byte size such as 4MiB; 0: no limit.',
    parse: (raw) => (raw === undefined ? 0 : byteRate('SVC_INGEST_LOG_BYTES_PER_SECOND', raw)),
  },
  {
    env: 'SVC_INGEST_LOG_BURST_BYTES',
    key: 'ingestLogBurstBytes',
    defaultText: '6MiB',
    doc: 'Log bytes one org may write at once after a pause (Loki\'s ingestion_burst_size_mb): the bucket size of SVC_INGEST_LOG_BYTES_PER_SECOND, so also the largest request that can ever pass.',
    parse: (raw) => (raw === undefined ? 6 * 1024 * 1024 : byteSize('SVC_INGEST_LOG_BURST_BYTES', raw)),
  },
  {
    env: 'SVC_INGEST_RATE_STRATEGY',
    key: 'ingestRateStrategy',
    defaultText: 'global',
    doc: 'How the per-org ingestion rates (SVC_INGEST_SAMPLES_PER_SECOND, SVC_INGEST_LOG_BYTES_PER_SECOND and the orgs\' own values) apply when several ingest processes share the writes (role ingest, scaled out): `global` (the rate is the installation\'s: each ingest process refills its bucket at rate / live ingest processes, counted in PostgreSQL, as Mimir\'s global strategy) or `local` (each ingest process admits the whole rate, as Loki\'s local strategy). The burst stays per process. One process (role all) always has the whole rate.',
    parse: (raw) => {
      const v = (raw ?? 'global').trim().toLowerCase();
      if (v !== 'global' && v !== 'local') throw new ConfigError(`SVC_INGEST_RATE_STRATEGY must be global or local, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_MAX_EXEMPLARS_PER_ORG',
    key: 'maxExemplarsPerOrg',
    defaultText: '100000',
    doc: 'Exemplars one org keeps in memory (Prometheus\' max_exemplars): one circular buffer over all its series, the oldest overwritten first; kept across a clean restart in `exemplars.json`. 0: exemplars are not kept.',
    parse: (raw) => (raw === undefined ? 100_000 : integer('SVC_MAX_EXEMPLARS_PER_ORG', raw, 0, 100_000_000)),
  },
  {
    env: 'SVC_CREATED_TIMESTAMP_ZERO_INGESTION',
    key: 'createdTimestampZeroIngestion',
    defaultText: 'false',
    doc: 'When true, a remote write sample\'s created (start) timestamp, and the start time of an OTLP cumulative counter, histogram or summary count, adds a zero sample there when it is newer than the series\' newest stored sample and older than the sample, as Prometheus\' created-timestamp-zero-ingestion feature does, so rate() sees a counter\'s first increase. An ingest-only process cannot see stored samples and adds none. When false, created timestamps are accepted and ignored.',
    parse: (raw) => (raw === undefined ? false : boolean('SVC_CREATED_TIMESTAMP_ZERO_INGESTION', raw)),
  },
  {
    env: 'SVC_OTLP_EXPONENTIAL_HISTOGRAMS',
    key: 'otlpExponentialHistograms',
    defaultText: 'native',
    doc: 'How OTLP exponential histograms are stored: `native` (one native histogram series, schema from the OTLP scale, as Prometheus 3 with native histograms enabled) or `classic` (`_bucket{le}`, `_sum` and `_count` series, one bucket per populated exponential bucket, for dashboards written for classic histograms).',
    parse: (raw) => {
      const v = (raw ?? 'native').trim().toLowerCase();
      if (v !== 'native' && v !== 'classic') throw new ConfigError(`SVC_OTLP_EXPONENTIAL_HISTOGRAMS must be native or classic, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_PROMQL_FEATURES',
    key: 'promqlFeatures',
    defaultText: DEFAULT_PROMQL_FEATURES.join(','),
    doc: `Comma-separated PromQL feature flags, named as Prometheus' --enable-feature names them: ${Object.keys(PROMQL_FEATURES).join(', ')}. The list replaces the default; an empty value turns every flag off. A query using a feature that is off gets the parse error Prometheus gives.`,
    parse: (raw) => (raw === undefined ? [...DEFAULT_PROMQL_FEATURES] : promqlFeatureList('SVC_PROMQL_FEATURES', raw)),
  },
  {
    env: 'SVC_DEFAULT_LOG_LIMIT',
    key: 'defaultLogLimit',
    defaultText: '1000',
    doc: 'Rows a raw log query returns when the request says limit 0 or none.',
    parse: (raw) => (raw === undefined ? 1000 : integer('SVC_DEFAULT_LOG_LIMIT', raw, 1, 10_000_000)),
  },
  {
    env: 'SVC_MAX_LOG_LIMIT',
    key: 'maxLogLimit',
    defaultText: '100000',
    doc: 'Largest limit a raw log query may ask for; more is 400 VALIDATION_FAILED.',
    parse: (raw) => (raw === undefined ? 100_000 : integer('SVC_MAX_LOG_LIMIT', raw, 1, 10_000_000)),
  },
  {
    env: 'SVC_MAX_SERIES_PER_QUERY',
    key: 'maxSeriesPerQuery',
    defaultText: '100000',
    doc: 'Series one log metric query may hold on a worker; beyond it the query fails cleanly.',
    parse: (raw) => (raw === undefined ? 100_000 : integer('SVC_MAX_SERIES_PER_QUERY', raw, 1, 100_000_000)),
  },
  {
    env: 'SVC_HEAD_MAX_BYTES',
    key: 'headMaxBytes',
    defaultText: '64MiB',
    doc: 'Estimated in-memory size of recent data (all orgs) at which it is cut into immutable segment files.',
    parse: (raw) => (raw === undefined ? 64 * 1024 * 1024 : byteSize('SVC_HEAD_MAX_BYTES', raw)),
  },
  {
    env: 'SVC_HEAD_MAX_AGE_MS',
    key: 'headMaxAgeMs',
    defaultText: '7200000 (2 h)',
    doc: 'Longest time data stays in memory (and the WAL) before it is cut into segments, however small.',
    parse: (raw) => (raw === undefined ? 7_200_000 : integer('SVC_HEAD_MAX_AGE_MS', raw, 1000, 7 * 86_400_000)),
  },
  {
    env: 'SVC_SEGMENT_TARGET_BYTES',
    key: 'segmentTargetBytes',
    defaultText: '256MiB',
    doc: 'Size the background compactor merges small adjacent segments of an org up to.',
    parse: (raw) => {
      if (raw === undefined) return 256 * 1024 * 1024;
      const n = byteSize('SVC_SEGMENT_TARGET_BYTES', raw);
      if (n > 1024 ** 3) throw new ConfigError(`SVC_SEGMENT_TARGET_BYTES must be at most 1GiB, got "${raw}"`);
      return n;
    },
  },
  {
    env: 'SVC_SEGMENT_CACHE_BYTES',
    key: 'segmentCacheBytes',
    defaultText: '25% of SVC_CACHE_MEMORY_BYTES',
    doc: 'Memory for segment files kept open between queries (least recently used are dropped first).',
    parse: (raw, env) => (raw === undefined ? cacheShare(env, 'segmentFiles') : byteSize('SVC_SEGMENT_CACHE_BYTES', raw)),
  },
  {
    env: 'SVC_WORKER_SEGMENT_CACHE_BYTES',
    key: 'workerSegmentCacheBytes',
    defaultText: '60% of SVC_CACHE_MEMORY_BYTES',
    doc: 'Memory for segments the query workers have decoded (series samples as arrays), for all workers together, each keeping an equal part; the least recently used segment is dropped first. Decoding is most of the cost of a query over stored data, so this cache decides how wide a window repeats fast.',
    parse: (raw, env) => (raw === undefined ? cacheShare(env, 'decodedSegments') : byteSize('SVC_WORKER_SEGMENT_CACHE_BYTES', raw)),
  },
  {
    env: 'SVC_WORKER_ALLOCATION_PROFILE_DIR',
    key: 'workerAllocationProfileDir',
    defaultText: 'unset (off)',
    doc: "For finding what query evaluation allocates: each query worker samples its allocations, those already collected included (V8's sampling heap profiler, one sample per 4 KiB on average), and writes them to `worker-<thread>.heapprofile` in this directory (Chrome DevTools' Memory panel reads it) after its first task and then at most every 5 s. `node --heap-prof` keeps only what is still alive when the process ends, which leaves out the short-lived garbage that makes collections. Off in production: sampling costs a few per cent of the workers' time.",
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : path.resolve(raw.trim())),
  },
  {
    env: 'SVC_RETENTION_DAYS',
    key: 'retentionDays',
    defaultText: '30',
    doc: 'Days of data kept per org and signal, unless the org has its own retention (`sluice orgs set`, see Orgs and limits); older segments are deleted in the background. 0 keeps data forever.',
    parse: (raw) => (raw === undefined ? 30 : integer('SVC_RETENTION_DAYS', raw, 0, MAX_RETENTION_DAYS)),
  },
  {
    env: 'SVC_COMPACTION_INTERVAL_MS',
    key: 'compactionIntervalMs',
    defaultText: '600000 (10 min)',
    doc: 'How often the background compactor merges small segments and retention deletes expired ones; a retention change takes effect at the next run.',
    parse: (raw) => (raw === undefined ? 600_000 : integer('SVC_COMPACTION_INTERVAL_MS', raw, 1000, 86_400_000)),
  },
  {
    env: 'SVC_INDEXED_TAGS',
    key: 'indexedTags',
    defaultText: DEFAULT_INDEXED_TAGS.join(','),
    doc: 'Comma-separated log tags that form streams and whose values the segment catalog records, so queries skip segments without them.',
    parse: (raw) => (raw === undefined ? [...DEFAULT_INDEXED_TAGS] : tagList('SVC_INDEXED_TAGS', raw)),
  },
  {
    env: 'SVC_BLOB_STORE',
    key: 'blobStore',
    defaultText: 'local',
    doc: 'Where segment files live: `local` (under SVC_DATA_DIR) or `s3` (an S3-compatible object store, see the SVC_S3_ settings and "Segments on object storage"). The WAL stays in SVC_DATA_DIR either way, and so does the catalog unless SVC_CATALOG_STORE is postgres.',
    parse: (raw) => {
      const v = (raw ?? 'local').trim().toLowerCase();
      if (v !== 'local' && v !== 's3') throw new ConfigError(`SVC_BLOB_STORE must be local or s3, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_S3_ENDPOINT',
    key: 's3Endpoint',
    defaultText: '(AWS)',
    doc: 'URL of an S3-compatible store (MinIO, Ceph, R2, ...); unset means AWS S3 in SVC_S3_REGION. Credentials come from the standard AWS variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE) or the instance role.',
    parse: (raw) => {
      if (raw === undefined || raw.trim() === '') return undefined;
      if (!/^https?:\/\/[^\s]+$/.test(raw.trim())) throw new ConfigError(`SVC_S3_ENDPOINT must be an http or https URL, got "${raw}"`);
      return raw.trim();
    },
  },
  {
    env: 'SVC_S3_BUCKET',
    key: 's3Bucket',
    defaultText: '(none)',
    doc: 'Bucket holding the segment files; required when SVC_BLOB_STORE is s3.',
    parse: (raw, env) => {
      const bucket = raw?.trim() || undefined;
      if (bucket === undefined && env.SVC_BLOB_STORE?.trim().toLowerCase() === 's3') throw new ConfigError('SVC_S3_BUCKET must be set when SVC_BLOB_STORE is s3');
      return bucket;
    },
  },
  {
    env: 'SVC_S3_REGION',
    key: 's3Region',
    defaultText: 'AWS_REGION, else us-east-1',
    doc: 'Region the requests are signed for.',
    parse: (raw, env) => raw?.trim() || env.AWS_REGION?.trim() || 'us-east-1',
  },
  {
    env: 'SVC_S3_PREFIX',
    key: 's3Prefix',
    defaultText: '(none)',
    doc: 'Key prefix of the segment files in the bucket (`sluice/prod/`), so several installations can share one bucket; each needs its own.',
    parse: (raw) => raw?.trim() ?? '',
  },
  {
    env: 'SVC_S3_FORCE_PATH_STYLE',
    key: 's3ForcePathStyle',
    defaultText: 'false',
    doc: 'Address buckets as `endpoint/bucket/key` instead of `bucket.endpoint/key`; most self-hosted stores need true.',
    parse: (raw) => (raw === undefined ? false : boolean('SVC_S3_FORCE_PATH_STYLE', raw)),
  },
  {
    env: 'SVC_S3_CACHE_DIR',
    key: 's3CacheDir',
    defaultText: 'SVC_DATA_DIR/segment-cache',
    doc: 'Local directory caching segment files read from or written to the object store; it may be wiped at any time (files are fetched again).',
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : path.resolve(raw.trim())),
  },
  {
    env: 'SVC_S3_CACHE_BYTES',
    key: 's3CacheBytes',
    defaultText: '10GiB',
    doc: 'Disk space the segment file cache may use; the least recently read files are deleted first.',
    parse: (raw) => (raw === undefined ? 10 * 1024 ** 3 : byteSize('SVC_S3_CACHE_BYTES', raw)),
  },
  {
    env: 'SVC_S3_MULTIPART_BYTES',
    key: 's3MultipartBytes',
    defaultText: '64MiB',
    doc: 'Segment size from which uploads go in parts (16MiB each, several at once); at least 5MiB.',
    parse: (raw) => {
      if (raw === undefined) return 64 * 1024 * 1024;
      const n = byteSize('SVC_S3_MULTIPART_BYTES', raw);
      if (n < 5 * 1024 * 1024) throw new ConfigError(`SVC_S3_MULTIPART_BYTES must be at least 5MiB, got "${raw}"`);
      return n;
    },
  },
  {
    env: 'SVC_META_STORE',
    key: 'metaStore',
    defaultText: 'file',
    doc: 'Where orgs, API keys, org settings, integrations and dashboards live: `file` (under SVC_DATA_DIR) or `postgres` (shared by every replica, see the SVC_POSTGRES_ settings and "PostgreSQL metadata").',
    parse: (raw) => {
      const v = (raw ?? 'file').trim().toLowerCase();
      if (v !== 'file' && v !== 'postgres') throw new ConfigError(`SVC_META_STORE must be file or postgres, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_CATALOG_STORE',
    key: 'catalogStore',
    defaultText: 'SVC_META_STORE',
    doc: 'Where the segment catalog lives: `file` (SVC_DATA_DIR/catalog.json) or `postgres` (the SVC_POSTGRES_ database, under SVC_CATALOG_NAME). Unset, it follows SVC_META_STORE, so one setting moves the catalog and all metadata.',
    parse: (raw, env) => {
      const v = (raw ?? env.SVC_META_STORE ?? 'file').trim().toLowerCase();
      if (v !== 'file' && v !== 'postgres') throw new ConfigError(`SVC_CATALOG_STORE must be file or postgres, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_CATALOG_NAME',
    key: 'catalogName',
    defaultText: 'default',
    doc: 'Name of this storage\'s catalog in PostgreSQL; installations sharing one database each need their own, since a catalog lists segment files only its own storage holds.',
    parse: (raw) => {
      const v = raw === undefined || raw.trim() === '' ? 'default' : raw.trim();
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(v)) throw new ConfigError(`SVC_CATALOG_NAME must be letters, digits, '.', '_' or '-' (at most 100), got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_POSTGRES_URL',
    key: 'postgresUrl',
    defaultText: '(none)',
    doc: 'PostgreSQL connection URL (`postgres://user:password@host:5432/sluice?sslmode=require`); fields it leaves out come from the SVC_POSTGRES_HOST/PORT/USER/PASSWORD/DATABASE settings, then from the standard PGHOST, PGPORT, PGUSER, PGDATABASE variables, then localhost:5432.',
    parse: (raw) => {
      const v = raw?.trim() || undefined;
      if (v !== undefined) {
        try {
          parseUrl(v);
        } catch (err) {
          throw new ConfigError(`SVC_POSTGRES_URL: ${(err as Error).message}`);
        }
      }
      return v;
    },
  },
  {
    env: 'SVC_POSTGRES_HOST',
    key: 'postgresHost',
    defaultText: 'localhost',
    doc: 'PostgreSQL host name, or the directory of its Unix socket.',
    parse: (raw) => raw?.trim() || undefined,
  },
  {
    env: 'SVC_POSTGRES_PORT',
    key: 'postgresPort',
    defaultText: '5432',
    doc: 'PostgreSQL port.',
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : integer('SVC_POSTGRES_PORT', raw, 1, 65535)),
  },
  {
    env: 'SVC_POSTGRES_USER',
    key: 'postgresUser',
    defaultText: '(the OS user)',
    doc: 'PostgreSQL user.',
    parse: (raw) => raw?.trim() || undefined,
  },
  {
    env: 'SVC_POSTGRES_PASSWORD',
    key: 'postgresPassword',
    defaultText: '(none)',
    doc: 'PostgreSQL password; prefer SVC_POSTGRES_PASSWORD_FILE, which keeps it out of the environment.',
    parse: (raw) => (raw === undefined || raw === '' ? undefined : raw),
  },
  {
    env: 'SVC_POSTGRES_PASSWORD_FILE',
    key: 'postgresPasswordFile',
    defaultText: '(none)',
    doc: 'File holding the PostgreSQL password (a mounted Kubernetes Secret); read at every new connection, so a rotated password is used without a restart.',
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : path.resolve(raw.trim())),
  },
  {
    env: 'SVC_POSTGRES_DATABASE',
    key: 'postgresDatabase',
    defaultText: '(the user name)',
    doc: 'PostgreSQL database; its schema is created and migrated at start-up.',
    parse: (raw) => raw?.trim() || undefined,
  },
  {
    env: 'SVC_POSTGRES_POOL_SIZE',
    key: 'postgresPoolSize',
    defaultText: '10',
    doc: 'Connections one process keeps for queries (the change listener uses one more).',
    parse: (raw) => (raw === undefined ? 10 : integer('SVC_POSTGRES_POOL_SIZE', raw, 1, 1000)),
  },
  {
    env: 'SVC_POSTGRES_STATEMENT_TIMEOUT_MS',
    key: 'postgresStatementTimeoutMs',
    defaultText: '10000',
    doc: 'PostgreSQL cancels a statement running longer (a lock held elsewhere, an overloaded server), so a request fails instead of hanging.',
    parse: (raw) => (raw === undefined ? 10_000 : integer('SVC_POSTGRES_STATEMENT_TIMEOUT_MS', raw, 100, 600_000)),
  },
  {
    env: 'SVC_WRITE_LOG',
    key: 'writeLog',
    defaultText: 'wal',
    doc: 'What makes a write durable before it is acknowledged: `wal` (the embedded write-ahead log in SVC_DATA_DIR) or `jetstream` (a replicated NATS JetStream stream, see the SVC_NATS_ settings and "How a write travels" in docs/architecture.md).',
    parse: (raw) => {
      const v = (raw ?? 'wal').trim().toLowerCase();
      if (v !== 'wal' && v !== 'jetstream') throw new ConfigError(`SVC_WRITE_LOG must be wal or jetstream, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_WRITE_LOG_PARTITIONS',
    key: 'writeLogPartitions',
    defaultText: '16',
    doc: 'Partitions of the write log; a write goes to the partition of its org and series (metrics) or stream (logs). Changing it moves series to other partitions, which is safe but loses their order across the change.',
    parse: (raw) => (raw === undefined ? 16 : integer('SVC_WRITE_LOG_PARTITIONS', raw, 1, 1024)),
  },
  {
    env: 'SVC_NATS_URLS',
    key: 'natsUrls',
    defaultText: '(none)',
    doc: 'Comma-separated NATS server URLs (`nats://host:4222,...`); required when SVC_WRITE_LOG is jetstream. The client tries each and follows the cluster.',
    parse: (raw, env) => {
      const urls = (raw ?? '').split(',').map((u) => u.trim()).filter((u) => u !== '');
      for (const u of urls) if (!/^(nats|tls|wss?):\/\/[^\s,]+$/.test(u)) throw new ConfigError(`SVC_NATS_URLS must list nats:// (or tls://, ws://, wss://) URLs, got "${u}"`);
      if (urls.length === 0 && env.SVC_WRITE_LOG?.trim().toLowerCase() === 'jetstream') throw new ConfigError('SVC_NATS_URLS must be set when SVC_WRITE_LOG is jetstream');
      return urls;
    },
  },
  {
    env: 'SVC_NATS_STREAM',
    key: 'natsStream',
    defaultText: 'SLUICE',
    doc: 'Name of the JetStream stream holding the write log (subjects `<name>.p.<partition>`), created at start when missing; committed positions go to `<name>_POSITIONS`. Each installation needs its own.',
    parse: (raw) => {
      const v = raw?.trim() || 'SLUICE';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(v)) throw new ConfigError(`SVC_NATS_STREAM must be 1 to 64 letters, digits, _ or -, got "${raw}"`);
      return v;
    },
  },
  {
    env: 'SVC_NATS_REPLICAS',
    key: 'natsReplicas',
    defaultText: '3',
    doc: 'Servers each write log record is stored on when the stream is created (JetStream allows 1 to 5); a write is acknowledged once a majority has it, so 3 survives one server down.',
    parse: (raw) => (raw === undefined ? 3 : integer('SVC_NATS_REPLICAS', raw, 1, 5)),
  },
  {
    env: 'SVC_NATS_ACK_TIMEOUT_MS',
    key: 'natsAckTimeoutMs',
    defaultText: '10000',
    doc: 'How long a write waits for JetStream to acknowledge it (retries with the same message id included) before the client gets 503.',
    parse: (raw) => (raw === undefined ? 10_000 : integer('SVC_NATS_ACK_TIMEOUT_MS', raw, 100, 120_000)),
  },
  {
    env: 'SVC_WRITE_LOG_TRIM',
    key: 'writeLogTrim',
    defaultText: 'true',
    doc: 'Whether a process that cuts the write log into segments (ingester, or all over jetstream) purges a partition\'s records from the JetStream stream once the catalog recorded segments holding them, so the stream holds only what is not cut yet. false: records stay until SVC_NATS_MAX_AGE_MS or SVC_NATS_MAX_BYTES remove them.',
    parse: (raw) => (raw === undefined ? true : boolean('SVC_WRITE_LOG_TRIM', raw)),
  },
  {
    env: 'SVC_NATS_MAX_AGE_MS',
    key: 'natsMaxAgeMs',
    defaultText: '0 (no bound)',
    doc: 'Safety bound on the write log stream: JetStream removes records older than this whether or not they were cut into segments, so records an ingester has not cut by then are lost. Set it well above the longest time partitions may go unread (an ingester outage). At least 600000 (10 minutes); 0: no bound. Applied to an existing stream at start.',
    parse: (raw) => {
      if (raw === undefined || raw.trim() === '0') return 0;
      return integer('SVC_NATS_MAX_AGE_MS', raw, 600_000, 3_153_600_000_000);
    },
  },
  {
    env: 'SVC_NATS_MAX_BYTES',
    key: 'natsMaxBytes',
    defaultText: '0 (no bound)',
    doc: 'Safety bound on the write log stream\'s size (a byte size such as 50GiB): past it JetStream refuses new writes, which clients get as 503 SERVICE_UNAVAILABLE, and no acknowledged record is dropped; it frees up as cuts trim the stream. 0: no bound. Applied to an existing stream at start.',
    parse: (raw) => (raw === undefined ? 0 : byteRate('SVC_NATS_MAX_BYTES', raw)),
  },
  {
    env: 'SVC_NATS_USER',
    key: 'natsUser',
    defaultText: '(none)',
    doc: 'User name for NATS, with SVC_NATS_PASSWORD.',
    parse: (raw) => raw?.trim() || undefined,
  },
  {
    env: 'SVC_NATS_PASSWORD',
    key: 'natsPassword',
    defaultText: '(none)',
    doc: 'Password for SVC_NATS_USER.',
    parse: (raw) => raw || undefined,
  },
  {
    env: 'SVC_NATS_TOKEN',
    key: 'natsToken',
    defaultText: '(none)',
    doc: 'Token for NATS token authentication.',
    parse: (raw) => raw?.trim() || undefined,
  },
  {
    env: 'SVC_NATS_CREDS_FILE',
    key: 'natsCredsFile',
    defaultText: '(none)',
    doc: 'Path of a NATS credentials file (JWT and NKey seed, as `nsc` writes it), for decentralized authentication; read at start.',
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : path.resolve(raw.trim())),
  },
  {
    env: 'SVC_ADVERTISE_URL',
    key: 'advertiseUrl',
    defaultText: 'http://<hostname>:<port>',
    doc: 'Base URL at which other Sluice processes reach this one (an ingester\'s head data for the query replicas), recorded with its partition leases; in Kubernetes the pod\'s DNS name under the headless Service.',
    parse: (raw) => {
      const v = raw?.trim() || undefined;
      if (v === undefined) return undefined;
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        throw new ConfigError(`SVC_ADVERTISE_URL must be an http:// or https:// URL, got "${raw}"`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`SVC_ADVERTISE_URL must be an http:// or https:// URL, got "${raw}"`);
      return v.replace(/\/+$/, '');
    },
  },
  {
    env: 'SVC_PARTITION_LEASE_MS',
    key: 'partitionLeaseMs',
    defaultText: '10000',
    doc: 'How long an ingester\'s lease on a write log partition lasts without renewal (it renews every third of it); a dead ingester\'s partitions are taken over this long after its last renewal.',
    parse: (raw) => (raw === undefined ? 10_000 : integer('SVC_PARTITION_LEASE_MS', raw, 300, 600_000)),
  },
  {
    env: 'SVC_COMPACTOR_LOCK_RETRY_MS',
    key: 'compactorLockRetryMs',
    defaultText: '5000',
    doc: 'How often a compactor that does not lead tries the leader lock (a PostgreSQL advisory lock), and how often the leader checks the connection holding it.',
    parse: (raw) => (raw === undefined ? 5000 : integer('SVC_COMPACTOR_LOCK_RETRY_MS', raw, 100, 600_000)),
  },
  {
    env: 'SVC_ORPHAN_SEGMENT_GRACE_MS',
    key: 'orphanSegmentGraceMs',
    defaultText: '3600000 (1 h)',
    doc: 'Scaled out, how old a segment file in the segment store must be before the compactor leader deletes it when no catalog record names it: a file left by an ingester or compactor that died between uploading it and committing its record. It must be far longer than any upload-to-commit takes; 0 turns the sweep off. The segment store\'s bucket and prefix must belong to this catalog alone.',
    parse: (raw) => (raw === undefined ? 3_600_000 : integer('SVC_ORPHAN_SEGMENT_GRACE_MS', raw, 0, 30 * 86_400_000)),
  },
  {
    env: 'SVC_INGESTER_URLS',
    key: 'ingesterUrls',
    defaultText: '(none)',
    doc: 'Comma-separated base URLs (`http://sluice-ingester-0.sluice-ingester:8080,...`) of the processes holding heads, for a fixed layout: a query process asks the (p mod n)-th URL for the recent data of write-log partition p (SVC_WRITE_LOG_PARTITIONS), and one URL serves them all. Unset, a query process with SVC_META_STORE=postgres finds the holders through the ingesters\' partition leases (their SVC_ADVERTISE_URL); without PostgreSQL it reads segments only. Needs SVC_INTERNAL_TOKEN.',
    parse: (raw, env) => {
      const urls = (raw ?? '').split(',').map((u) => u.trim()).filter((u) => u !== '');
      for (const u of urls) if (!/^https?:\/\/[^\s,/]+(\/[^\s,]*)?$/.test(u)) throw new ConfigError(`SVC_INGESTER_URLS must list http:// or https:// URLs, got "${u}"`);
      if (urls.length > 0 && optionalSecret(env.SVC_INTERNAL_TOKEN) === undefined) throw new ConfigError('SVC_INGESTER_URLS needs SVC_INTERNAL_TOKEN (the token the head holders accept)');
      return urls;
    },
  },
  {
    env: 'SVC_INTERNAL_TOKEN',
    key: 'internalToken',
    defaultText: '(unset: internal endpoints off)',
    doc: 'Secret shared by the processes of one installation, sent as `Authorization: Bearer` to the internal head endpoint (POST /internal/v1/head) that head holders (roles all and ingester) serve to query processes; never a user API key. 32+ characters, no placeholder. An ingester refuses to start without it; a process of role all without it answers the endpoint 403.',
    parse: (raw) => apiKeySetting('SVC_INTERNAL_TOKEN', raw),
  },
  {
    env: 'SVC_HEAD_FETCH_TIMEOUT_MS',
    key: 'headFetchTimeoutMs',
    defaultText: '2000',
    doc: 'How long a query process waits for one head holder\'s answer (the whole body); past it the query answers from the segments alone and ends with a partial-result status.',
    parse: (raw) => (raw === undefined ? 2000 : integer('SVC_HEAD_FETCH_TIMEOUT_MS', raw, 50, 60_000)),
  },
  {
    env: 'SVC_HEAD_FETCH_MAX_BYTES',
    key: 'headFetchMaxBytes',
    defaultText: '512MiB',
    doc: 'Largest answer of the internal head endpoint (one org\'s heads of one signal): a holder refuses a larger one with 413 and a query process stops reading past it, answering from the segments alone with a partial-result status.',
    parse: (raw) => (raw === undefined ? 512 * 1024 * 1024 : byteSize('SVC_HEAD_FETCH_MAX_BYTES', raw)),
  },
  {
    env: 'SVC_PARTITION_OWNERS_CACHE_MS',
    key: 'partitionOwnersCacheMs',
    defaultText: '1000',
    doc: 'How long a query process keeps its read of the partition leases (who holds which partition\'s heads) before asking PostgreSQL again; 0 reads them on every head fetch. A lease counts only until its recorded expiry either way, and a failed head fetch reads them afresh at once.',
    parse: (raw) => (raw === undefined ? 1000 : integer('SVC_PARTITION_OWNERS_CACHE_MS', raw, 0, 60_000)),
  },
];

/**
 * loadConfig reads every setting from `env`, collecting all problems so an operator fixes
 * them in one go; throws ConfigError naming each bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Partial<Record<keyof Config, unknown>> = {};
  const problems: string[] = [];
  for (const setting of SETTINGS) {
    try {
      out[setting.key] = setting.parse(env[setting.env], env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return out as Config;
}

/**
 * unknownSettings lists SVC_ variables that no setting reads: almost always a typo
 * (SVC_PROT for SVC_PORT) that would otherwise be ignored without a word.
 */
export function unknownSettings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(SETTINGS.map((s) => s.env));
  return Object.keys(env)
    .filter((name) => name.startsWith('SVC_') && !known.has(name))
    .sort();
}

/** settingsTable renders SETTINGS as the Markdown table README embeds. */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | ${s.defaultText} | ${s.doc} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
