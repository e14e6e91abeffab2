import {
  DeltaAccumulator,
  IngestError,
  decodeContentEncoding,
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWriteVersion,
  describeLabels,
  encodeExportResponse,
  exportResponseJson,
  type DecodeResult,
  type DiscardReason,
  type ExemplarStore,
  type IngestLimits,
  type LogEntry,
  type MetricSeries,
  type Storage,
} from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { callerOrg } from '../auth/callerOrg.js';
import type { ServiceMetrics } from '../metrics.js';
import { describeReason, limitOrigin, type IngestLimitsFor } from './ingestLimits.js';
import { IngestRateLimiter, type IngestSignal } from './ingestRate.js';
import { remoteWriteVersion, writtenCounts, writtenHeaders } from './remoteWrite.js';

/**
 * Ingest routes take the formats collectors already speak. A body that cannot be read at all
 * stores nothing (400). Records that decode but break a limit (a timestamp out of bounds, too
 * many labels, a line too long, a new series or stream beyond the org's count) are dropped one
 * by one while the rest is stored, and reported: OTLP-style as a partial success (200, as the
 * OTLP specification requires), remote-write and Loki-style as a 400 naming the first rejected
 * records after the valid ones were stored, as Prometheus and Loki do, so a sender does not
 * retry them forever. An org over its ingestion rate (ingestRate.ts) has the whole request
 * refused with 429 and Retry-After before anything is stored. Every rejection is counted in
 * /metrics by org and reason.
 */
export interface IngestDeps {
  storage: Storage;
  metrics: ServiceMetrics;
  maxBodyBytes: number;
  /** the limits of an org's writes; asked once per request */
  limitsFor: IngestLimitsFor;
  /** the log tags that form streams (the storage's indexed tags) */
  streamTags: ReadonlySet<string>;
  /** the per-org ingestion rate buckets; one per service */
  rateLimiter: IngestRateLimiter;
  /** where remote write's exemplars are kept */
  exemplars: ExemplarStore;
  /** add a zero sample at remote write's created timestamps (SVC_CREATED_TIMESTAMP_ZERO_INGESTION) */
  createdTimestampZero: boolean;
}

const INGEST_NEEDS_ORG = 'ingestion needs an org API key; the system key has no org to write to';

/** orgOf is the org every ingest endpoint writes to: the caller key's own. */
function orgOf(ctx: RequestContext): string {
  return callerOrg(ctx.principal, INGEST_NEEDS_ORG);
}

/** decodeOrFail turns decoder failures into the spec's error codes. */
function decodeOrFail<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof IngestError) throw new ApiError(err.code, err.message);
    throw err;
  }
}

/** store runs the durable write; a storage failure is transient for the sender (503, retry). */
async function store<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    ctx.log.error({ err }, 'storing ingested data failed');
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not persist the data; retry later');
  }
}

function isProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().includes('protobuf');
}

/**
 * rejectedMessage explains a request's rejections: the reasons with their counts and the
 * settings behind them, then the first rejected records, each named.
 */
function rejectedMessage(result: DecodeResult<unknown>, limits: IngestLimits): string {
  const reasons = (Object.entries(result.discarded) as Array<[DiscardReason, number]>)
    .map(([reason, n]) => `${describeReason(reason, limits)}: ${n}`)
    .join(', ');
  return `${reasons}; ${result.errors.join('; ')}`;
}

/** answerOtlp writes the OTLP/HTTP response in the request's encoding, with partial success when some records were rejected. */
function answerOtlp(ctx: RequestContext, signal: 'logs' | 'metrics', result: DecodeResult<unknown>, limits: IngestLimits): void {
  const message = result.rejected > 0 ? rejectedMessage(result, limits) : '';
  if (isProtobuf(ctx.headers['content-type'])) {
    ctx.res.send(200, encodeExportResponse(result.rejected, message), 'application/x-protobuf');
  } else {
    ctx.res.json(200, exportResponseJson(signal, result.rejected, message));
  }
}

/**
 * answerPush is the remote-write / Loki push answer: 204, or 400 naming what was dropped out of
 * how much; `headers` go with either.
 */
function answerPush(ctx: RequestContext, result: DecodeResult<unknown>, total: number, unit: string, limits: IngestLimits, headers: Record<string, string> = {}): void {
  if (result.rejected === 0) {
    ctx.res.send(204, '', 'text/plain', headers);
    return;
  }
  throw new ApiError('BAD_REQUEST', `${result.rejected} of ${total} ${unit} rejected (${rejectedMessage(result, limits)})`, { headers });
}

/** addRefusal folds what the storage refused for a count limit into the decode result. */
function addRefusal(result: DecodeResult<unknown>, reason: DiscardReason, records: number, message: string): void {
  result.rejected += records;
  result.discarded[reason] = (result.discarded[reason] ?? 0) + records;
  result.errors.push(message);
}

function sampleCount(series: MetricSeries[]): number {
  let n = 0;
  for (const s of series) n += s.values.length;
  return n;
}

/** logBytes is what a batch of log lines costs against the org's rate: the UTF-8 bytes of the lines, as Loki counts. */
function logBytes(entries: LogEntry[]): number {
  let n = 0;
  for (const e of entries) n += Buffer.byteLength(e.message, 'utf8');
  return n;
}

export function ingestRoutes(deps: IngestDeps): RouteSpec[] {
  const { storage, metrics, maxBodyBytes, limitsFor, streamTags, rateLimiter, exemplars, createdTimestampZero } = deps;
  const deltas = new Map<string, DeltaAccumulator>();
  const deltaFor = (org: string): DeltaAccumulator => {
    let acc = deltas.get(org);
    if (!acc) deltas.set(org, (acc = new DeltaAccumulator()));
    return acc;
  };
  const unpack = (ctx: RequestContext): Uint8Array =>
    decodeOrFail(() => decodeContentEncoding(ctx.body!, ctx.headers['content-encoding'], maxBodyBytes));
  const count = (org: string, signal: IngestSignal, accepted: number, result: DecodeResult<unknown>): void => {
    metrics.ingested.inc({ signal }, accepted);
    for (const [reason, n] of Object.entries(result.discarded)) metrics.ingestRejected.inc({ signal, reason, org }, n);
  };

  /**
   * admit takes the valid part of a decoded request (`records` samples or lines costing `cost()`)
   * from the org's rate budget, or refuses the whole request: the rejections already found
   * and the refused records are counted, and the 429 is thrown before anything is stored.
   * The cost is only worked out when the org has a rate for the signal.
   */
  const admit = (org: string, signal: IngestSignal, records: number, cost: () => number, result: DecodeResult<unknown>, limits: IngestLimits): void => {
    if (!rateLimiter.applies(signal, limits)) return;
    const refusal = rateLimiter.refusal(org, signal, cost(), limits);
    if (refusal === undefined) return;
    count(org, signal, 0, result);
    metrics.ingestRejected.inc({ signal, reason: 'rate_limited', org }, records);
    throw refusal;
  };

  /**
   * storeMetrics writes decoded series and folds what the org's active series limit refused
   * into the result's rejections, so each protocol reports it its own way. Returns the samples stored.
   */
  const storeMetrics = async (ctx: RequestContext, org: string, result: DecodeResult<MetricSeries>, limits: IngestLimits): Promise<number> => {
    const outcome = await store(ctx, () => storage.appendMetrics(org, result.records, result.metadata ?? [], limits));
    if (outcome.refusedSeries > 0) {
      addRefusal(
        result,
        'series_limit',
        outcome.refusedSamples,
        `${outcome.refusedSeries} new series refused, the first ${describeLabels(outcome.firstRefused ?? {})}: ` +
          `the org is at its limit of ${limits.maxActiveSeries} active series (${limitOrigin(limits, 'maxActiveSeries')})`,
      );
    }
    return sampleCount(result.records) - outcome.refusedSamples;
  };

  /** storeLogs is storeMetrics for log lines and the active stream limit. Returns the lines stored. */
  const storeLogs = async (ctx: RequestContext, org: string, result: DecodeResult<LogEntry>, limits: IngestLimits): Promise<number> => {
    const outcome = await store(ctx, () => storage.appendLogs(org, result.records, limits));
    if (outcome.refusedStreams > 0) {
      addRefusal(
        result,
        'stream_limit',
        outcome.refusedLines,
        `${outcome.refusedStreams} new stream(s) refused, the first ${describeLabels(outcome.firstRefused ?? {})}: ` +
          `the org is at its limit of ${limits.maxActiveStreams} active streams (${limitOrigin(limits, 'maxActiveStreams')})`,
      );
    }
    return result.records.length - outcome.refusedLines;
  };

  return [
    {
      method: 'POST',
      path: '/v1/logs',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const limits = limitsFor(org, 'logs');
        const result = decodeOrFail(() => decodeOtlpLogs(unpack(ctx), ctx.headers['content-type'], { nowMs: Date.now(), limits, streamTags }));
        admit(org, 'logs', result.records.length, () => logBytes(result.records), result, limits);
        const stored = await storeLogs(ctx, org, result, limits);
        count(org, 'logs', stored, result);
        answerOtlp(ctx, 'logs', result, limits);
      },
    },
    {
      method: 'POST',
      path: '/v1/metrics',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const limits = limitsFor(org, 'metrics');
        const deltaAccumulator = deltaFor(org);
        // Decoding adds delta points to the org's running totals; a request refused for its rate
        // takes them back, so its retry is not mistaken for points already accumulated. Both
        // steps are synchronous: no other request of the org can run in between. Without a rate
        // limit nothing refuses a decoded request here, and the journal is not kept.
        if (limits.ingestSamplesPerSecond > 0) deltaAccumulator.begin();
        let result: DecodeResult<MetricSeries>;
        try {
          result = decodeOrFail(() => decodeOtlpMetrics(unpack(ctx), ctx.headers['content-type'], { nowMs: Date.now(), limits, deltaAccumulator }));
          const samples = sampleCount(result.records);
          admit(org, 'metrics', samples, () => samples, result, limits);
        } catch (err) {
          deltaAccumulator.rollback();
          throw err;
        }
        deltaAccumulator.commit();
        const stored = await storeMetrics(ctx, org, result, limits);
        count(org, 'metrics', stored, result);
        answerOtlp(ctx, 'metrics', result, limits);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/write',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const limits = limitsFor(org, 'metrics');
        const version = remoteWriteVersion(ctx);
        // Remote write bodies are snappy-compressed by contract; the decoder unpacks them.
        const options = { nowMs: Date.now(), limits, maxDecompressedBytes: maxBodyBytes, createdTimestampZero };
        const result = decodeOrFail(() => decodeRemoteWriteVersion(version, ctx.body!, options));
        const samples = sampleCount(result.records);
        const total = samples - result.createdZeros + result.rejected;
        admit(org, 'metrics', samples, () => samples, result, limits);
        const stored = await storeMetrics(ctx, org, result, limits);
        count(org, 'metrics', stored, result);
        const written = writtenCounts(result, stored, exemplars.add(org, result.exemplars));
        answerPush(ctx, result, total, 'samples', limits, writtenHeaders(written));
      },
    },
    {
      method: 'POST',
      path: '/loki/api/v1/push',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const limits = limitsFor(org, 'logs');
        const contentType = ctx.headers['content-type'];
        // Protobuf pushes are snappy-compressed by contract; JSON ones may carry gzip.
        const body = isProtobuf(contentType) ? ctx.body! : unpack(ctx);
        const result = decodeOrFail(() =>
          decodeLokiPush(body, contentType, { nowMs: Date.now(), limits, maxDecompressedBytes: maxBodyBytes }),
        );
        const total = result.records.length + result.rejected;
        admit(org, 'logs', result.records.length, () => logBytes(result.records), result, limits);
        const stored = await storeLogs(ctx, org, result, limits);
        count(org, 'logs', stored, result);
        answerPush(ctx, result, total, 'entries', limits);
      },
    },
  ];
}
