import type { Logger } from 'pino';
import {
  DeltaAccumulator,
  IngestError,
  SeriesLabelCache,
  decodeContentEncoding,
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWriteVersion,
  describeLabels,
  type DecodeResult,
  type DiscardReason,
  type IngestLimits,
  type LogEntry,
  type MetricSeries,
  type RemoteWriteResult,
  type RemoteWriteVersion,
  type Storage,
} from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { ServiceMetrics } from '../metrics.js';
import { limitOrigin, type IngestLimitsFor } from './limits.js';
import type { IngestRateLimiter, IngestSignal } from './rateLimiter.js';

/**
 * IngestService owns everything a write needs beyond one request: the org's limits, its rate
 * buckets, the running totals of OTLP delta metrics and the rejection counters. The routes
 * only read the request and render the outcome, so each protocol's handler is three lines and
 * a new protocol is one method here plus one route.
 *
 * A body that cannot be read at all stores nothing (an ApiError, 400). Records that decode but
 * break a limit (a timestamp out of bounds, too many labels, a line too long, a new series or
 * stream beyond the org's count) are dropped one by one while the rest is stored, and come back
 * in the outcome for the route to report in its protocol's way. An org over its ingestion rate
 * has the whole request refused with 429 before anything is stored. Every rejection is counted
 * in /metrics by org and reason.
 */
export interface IngestServiceDeps {
  storage: Storage;
  metrics: ServiceMetrics;
  maxBodyBytes: number;
  /** the limits of an org's writes; asked once per request */
  limitsFor: IngestLimitsFor;
  /** the log tags that form streams (the storage's indexed tags) */
  streamTags: ReadonlySet<string>;
  /** the per-org ingestion rate buckets; one per service */
  rateLimiter: IngestRateLimiter;
  /** add a zero sample at remote write's created timestamps (SVC_CREATED_TIMESTAMP_ZERO_INGESTION) */
  createdTimestampZero: boolean;
  /** store OTLP exponential histograms as native histograms or classic buckets (SVC_OTLP_EXPONENTIAL_HISTOGRAMS) */
  otlpExponentialHistograms: 'native' | 'classic';
  /**
   * metricsWritten is told, after each stored metric write, the org and the oldest and newest
   * sample time it wrote: the results cache drops what late samples make stale.
   */
  metricsWritten?: (org: string, minMs: number, maxMs: number) => void;
  /** logsWritten is metricsWritten for log lines (times in ms, rounded outwards). */
  logsWritten?: (org: string, minMs: number, maxMs: number) => void;
}

/** IngestRequest is what a route reads from an ingest request. */
export interface IngestRequest {
  /** the org the caller's key writes to */
  org: string;
  body: Uint8Array;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** the request's log, for a storage failure */
  log: Logger;
}

/** IngestOutcome is what was stored and what was dropped, for the route to render. */
export interface IngestOutcome {
  result: DecodeResult<unknown>;
  /** the limits the request was checked against, to name them in messages */
  limits: IngestLimits;
  /** the records of the request, accepted and rejected (samples or log entries) */
  total: number;
  /** the records stored */
  stored: number;
  /** the native histogram samples among `stored` */
  histogramsStored?: number;
}

/** RemoteWriteOutcome adds what remote write tells its sender beyond the common outcome. */
export interface RemoteWriteOutcome extends IngestOutcome {
  result: RemoteWriteResult;
  /** the exemplars the exemplar store kept */
  exemplarsStored: number;
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
async function store<T>(log: Logger, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    log.error({ err }, 'storing ingested data failed');
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not persist the data; retry later');
  }
}

/** isProtobuf tells a protobuf body from a JSON one by its content type. */
export function isProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().includes('protobuf');
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
/** sampleTimeRange is the oldest and newest sample time of a write, undefined when it has none. */
function sampleTimeRange(series: MetricSeries[]): { minMs: number; maxMs: number } | undefined {
  let minMs = Infinity;
  let maxMs = -Infinity;
  for (const s of series) {
    const ts = s.timestampsMs;
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i];
      if (t < minMs) minMs = t;
      if (t > maxMs) maxMs = t;
    }
  }
  return minMs <= maxMs ? { minMs, maxMs } : undefined;
}

/** lineTimeRange is the oldest and newest line time of a write in ms (floor and ceiling), undefined when it has none. */
function lineTimeRange(entries: LogEntry[]): { minMs: number; maxMs: number } | undefined {
  if (entries.length === 0) return undefined;
  let minNs = entries[0].timestampNs;
  let maxNs = minNs;
  for (const e of entries) {
    if (e.timestampNs < minNs) minNs = e.timestampNs;
    if (e.timestampNs > maxNs) maxNs = e.timestampNs;
  }
  return { minMs: Number(minNs / 1_000_000n), maxMs: Number(maxNs / 1_000_000n) + 1 };
}

function logBytes(entries: LogEntry[]): number {
  let n = 0;
  for (const e of entries) n += Buffer.byteLength(e.message, 'utf8');
  return n;
}

export class IngestService {
  private readonly deltas = new Map<string, DeltaAccumulator>();
  /** each org's remote write series labels, decoded once per series rather than per request */
  private readonly labelCaches = new Map<string, SeriesLabelCache>();

  constructor(private readonly deps: IngestServiceDeps) {}

  /** otlpLogs stores an OTLP/HTTP logs export (protobuf or JSON, any content coding). */
  async otlpLogs(req: IngestRequest): Promise<IngestOutcome> {
    const limits = this.deps.limitsFor(req.org, 'logs');
    const result = decodeOrFail(() =>
      decodeOtlpLogs(this.unpack(req), req.contentType, { nowMs: Date.now(), limits, streamTags: this.deps.streamTags }),
    );
    return this.writeLogs(req, result, limits);
  }

  /** otlpMetrics stores an OTLP/HTTP metrics export; delta points add to the org's running totals. */
  async otlpMetrics(req: IngestRequest): Promise<IngestOutcome> {
    const limits = this.deps.limitsFor(req.org, 'metrics');
    const deltaAccumulator = this.deltaFor(req.org);
    // Decoding adds delta points to the org's running totals; a request refused for its rate
    // takes them back, so its retry is not mistaken for points already accumulated. Both
    // steps are synchronous: no other request of the org can run in between. Without a rate
    // limit nothing refuses a decoded request here, and the journal is not kept.
    if (limits.ingestSamplesPerSecond > 0) deltaAccumulator.begin();
    let result: DecodeResult<MetricSeries>;
    try {
      const createdTimestampZero = this.deps.createdTimestampZero;
      const lastStoredMs = createdTimestampZero ? this.deps.storage.lastMetricSamples(req.org) : undefined;
      const options = { nowMs: Date.now(), limits, deltaAccumulator, exponentialHistograms: this.deps.otlpExponentialHistograms, createdTimestampZero, lastStoredMs };
      result = decodeOrFail(() => decodeOtlpMetrics(this.unpack(req), req.contentType, options));
      const samples = sampleCount(result.records);
      this.admit(req.org, 'metrics', samples, () => samples, result, limits);
    } catch (err) {
      deltaAccumulator.rollback();
      throw err;
    }
    deltaAccumulator.commit();
    return this.storeMetrics(req, result, limits);
  }

  /**
   * remoteWrite stores a Prometheus remote write request of either version (snappy-compressed
   * by contract) and its exemplars. Zero samples added at created timestamps are not the
   * sender's, so they count in neither the request's total nor what it is told was written.
   * A zero is added only after the series' newest stored sample (Storage.lastMetricSamples);
   * a process that cannot know it (ingest-only) adds none.
   */
  async remoteWrite(req: IngestRequest, version: RemoteWriteVersion): Promise<RemoteWriteOutcome> {
    const limits = this.deps.limitsFor(req.org, 'metrics');
    const createdTimestampZero = this.deps.createdTimestampZero;
    // Zeros go only after each series' newest stored sample, which the heads answer.
    const lastStoredMs = createdTimestampZero ? this.deps.storage.lastMetricSamples(req.org) : undefined;
    const labelCache = this.labelCacheFor(req.org);
    const options = { nowMs: Date.now(), limits, maxDecompressedBytes: this.deps.maxBodyBytes, createdTimestampZero, lastStoredMs, labelCache };
    const result = decodeOrFail(() => decodeRemoteWriteVersion(version, req.body, options));
    const samples = sampleCount(result.records);
    this.admit(req.org, 'metrics', samples, () => samples, result, limits);
    const outcome = await this.storeMetrics(req, result, limits);
    // Kept where the series' samples go: here with the embedded WAL, else by the ingester holding the series.
    const exemplarsStored = await this.deps.storage.appendExemplars(req.org, result.exemplars);
    return { ...outcome, result, total: outcome.total - result.createdZeros, exemplarsStored };
  }

  /** lokiPush stores a Loki push: protobuf (snappy by contract) or JSON (which may carry gzip). */
  async lokiPush(req: IngestRequest): Promise<IngestOutcome> {
    const limits = this.deps.limitsFor(req.org, 'logs');
    const body = isProtobuf(req.contentType) ? req.body : this.unpack(req);
    const result = decodeOrFail(() =>
      decodeLokiPush(body, req.contentType, { nowMs: Date.now(), limits, maxDecompressedBytes: this.deps.maxBodyBytes }),
    );
    return this.writeLogs(req, result, limits);
  }

  private deltaFor(org: string): DeltaAccumulator {
    let acc = this.deltas.get(org);
    if (!acc) this.deltas.set(org, (acc = new DeltaAccumulator()));
    return acc;
  }

  private labelCacheFor(org: string): SeriesLabelCache {
    let cache = this.labelCaches.get(org);
    if (!cache) this.labelCaches.set(org, (cache = new SeriesLabelCache()));
    return cache;
  }

  private unpack(req: IngestRequest): Uint8Array {
    return decodeOrFail(() => decodeContentEncoding(req.body, req.contentEncoding, this.deps.maxBodyBytes));
  }

  private count(org: string, signal: IngestSignal, accepted: number, result: DecodeResult<unknown>): void {
    const { metrics } = this.deps;
    metrics.ingested.inc({ signal }, accepted);
    for (const [reason, n] of Object.entries(result.discarded)) metrics.ingestRejected.inc({ signal, reason, org }, n);
  }

  /**
   * admit takes the valid part of a decoded request (`records` samples or lines costing `cost()`)
   * from the org's rate budget, or refuses the whole request: the rejections already found
   * and the refused records are counted, and the 429 is thrown before anything is stored.
   * The cost is only worked out when the org has a rate for the signal.
   */
  private admit(
    org: string,
    signal: IngestSignal,
    records: number,
    cost: () => number,
    result: DecodeResult<unknown>,
    limits: IngestLimits,
  ): void {
    const { rateLimiter, metrics } = this.deps;
    if (!rateLimiter.applies(signal, limits)) return;
    const refusal = rateLimiter.refusal(org, signal, cost(), limits);
    if (refusal === undefined) return;
    this.count(org, signal, 0, result);
    metrics.ingestRejected.inc({ signal, reason: 'rate_limited', org }, records);
    throw refusal;
  }

  /**
   * storeMetrics writes admitted series and folds what the org's active series limit refused
   * into the result's rejections, so each protocol reports it its own way.
   */
  private async storeMetrics(req: IngestRequest, result: DecodeResult<MetricSeries>, limits: IngestLimits): Promise<IngestOutcome> {
    const samples = sampleCount(result.records);
    const total = samples + result.rejected;
    const outcome = await store(req.log, () => this.deps.storage.appendMetrics(req.org, result.records, result.metadata ?? [], limits));
    const written = this.deps.metricsWritten === undefined ? undefined : sampleTimeRange(result.records);
    if (written !== undefined) this.deps.metricsWritten?.(req.org, written.minMs, written.maxMs);
    if (outcome.refusedSeries > 0) {
      addRefusal(
        result,
        'series_limit',
        outcome.refusedSamples,
        `${outcome.refusedSeries} new series refused, the first ${describeLabels(outcome.firstRefused ?? {})}: ` +
          `the org is at its limit of ${limits.maxActiveSeries} active series (${limitOrigin(limits, 'maxActiveSeries')})`,
      );
    }
    const stored = samples - outcome.refusedSamples;
    this.count(req.org, 'metrics', stored, result);
    return { result, limits, total, stored, histogramsStored: histogramSamples(result.records) - outcome.refusedHistograms };
  }

  /** writeLogs admits decoded log lines against the org's rate, then stores them as storeMetrics does series. */
  private async writeLogs(req: IngestRequest, result: DecodeResult<LogEntry>, limits: IngestLimits): Promise<IngestOutcome> {
    const lines = result.records.length;
    const total = lines + result.rejected;
    this.admit(req.org, 'logs', lines, () => logBytes(result.records), result, limits);
    const outcome = await store(req.log, () => this.deps.storage.appendLogs(req.org, result.records, limits));
    const written = this.deps.logsWritten === undefined ? undefined : lineTimeRange(result.records);
    if (written !== undefined) this.deps.logsWritten?.(req.org, written.minMs, written.maxMs);
    if (outcome.refusedStreams > 0) {
      addRefusal(
        result,
        'stream_limit',
        outcome.refusedLines,
        `${outcome.refusedStreams} new stream(s) refused, the first ${describeLabels(outcome.firstRefused ?? {})}: ` +
          `the org is at its limit of ${limits.maxActiveStreams} active streams (${limitOrigin(limits, 'maxActiveStreams')})`,
      );
    }
    const stored = lines - outcome.refusedLines;
    this.count(req.org, 'logs', stored, result);
    return { result, limits, total, stored };
  }
}

/** histogramSamples counts the native histogram samples among the records' samples. */
function histogramSamples(records: readonly MetricSeries[]): number {
  let n = 0;
  for (const r of records) if (r.histograms !== undefined) for (const h of r.histograms) if (h !== undefined) n++;
  return n;
}
