import {
  DeltaAccumulator,
  IngestError,
  decodeContentEncoding,
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWrite,
  encodeExportResponse,
  exportResponseJson,
  type DecodeResult,
  type MetricSeries,
  type Storage,
} from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import type { ServiceMetrics } from '../metrics.js';

/**
 * Ingest routes take the formats collectors already speak. Each request is decoded and
 * validated in full before anything is stored: a body that cannot be read stores nothing
 * (400), while records that decode but break a limit are dropped one by one and reported,
 * OTLP-style as a partial success (200), remote-write and Loki-style as a 400 naming them after
 * the valid records were stored, as Mimir and Loki do, so a sender does not retry them forever.
 */
export interface IngestDeps {
  storage: Storage;
  metrics: ServiceMetrics;
  maxBodyBytes: number;
}

function orgOf(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p?.kind !== 'org') throw new ApiError('FORBIDDEN', 'ingestion needs an org API key; the system key has no org to write to');
  return p.orgId;
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
async function store(ctx: RequestContext, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    ctx.log.error({ err }, 'storing ingested data failed');
    throw new ApiError('SERVICE_UNAVAILABLE', 'could not persist the data; retry later');
  }
}

function isProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().includes('protobuf');
}

function rejectedMessage(result: DecodeResult<unknown>): string {
  return result.errors.join('; ');
}

/** answerOtlp writes the OTLP/HTTP response in the request's encoding, with partial success when some records were rejected. */
function answerOtlp(ctx: RequestContext, signal: 'logs' | 'metrics', result: DecodeResult<unknown>): void {
  const message = result.rejected > 0 ? rejectedMessage(result) : '';
  if (isProtobuf(ctx.headers['content-type'])) {
    ctx.res.send(200, encodeExportResponse(result.rejected, message), 'application/x-protobuf');
  } else {
    ctx.res.json(200, exportResponseJson(signal, result.rejected, message));
  }
}

/** answerPush is the remote-write / Loki push answer: 204, or 400 naming what was dropped. */
function answerPush(ctx: RequestContext, result: DecodeResult<unknown>): void {
  if (result.rejected === 0) {
    ctx.res.send(204, '', 'text/plain');
    return;
  }
  throw new ApiError('BAD_REQUEST', `${result.rejected} record(s) rejected: ${rejectedMessage(result)}`);
}

export function ingestRoutes(deps: IngestDeps): RouteSpec[] {
  const { storage, metrics, maxBodyBytes } = deps;
  const deltas = new Map<string, DeltaAccumulator>();
  const deltaFor = (org: string): DeltaAccumulator => {
    let acc = deltas.get(org);
    if (!acc) deltas.set(org, (acc = new DeltaAccumulator()));
    return acc;
  };
  const unpack = (ctx: RequestContext): Uint8Array =>
    decodeOrFail(() => decodeContentEncoding(ctx.body!, ctx.headers['content-encoding'], maxBodyBytes));
  const count = (signal: string, accepted: number, rejected: number): void => {
    metrics.ingested.inc({ signal }, accepted);
    if (rejected > 0) metrics.ingestRejected.inc({ signal }, rejected);
  };

  /**
   * storeMetrics writes decoded series and folds what the per-org series limit refused into
   * the result's rejections, so each protocol reports it its own way. Returns the refused samples.
   */
  const storeMetrics = async (ctx: RequestContext, org: string, result: DecodeResult<MetricSeries>): Promise<number> => {
    let refused = 0;
    await store(ctx, async () => {
      const outcome = await storage.appendMetrics(org, result.records, result.metadata ?? []);
      refused = outcome.refusedSamples;
      if (outcome.refusedSeries > 0) {
        result.rejected += outcome.refusedSamples;
        result.errors.push(`${outcome.refusedSeries} new series refused: the org is at its limit of active series (SVC_MAX_SERIES_PER_ORG)`);
      }
    });
    return refused;
  };

  return [
    {
      method: 'POST',
      path: '/v1/logs',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const result = decodeOrFail(() => decodeOtlpLogs(unpack(ctx), ctx.headers['content-type'], { nowMs: Date.now() }));
        await store(ctx, () => storage.appendLogs(org, result.records));
        count('logs', result.records.length, result.rejected);
        answerOtlp(ctx, 'logs', result);
      },
    },
    {
      method: 'POST',
      path: '/v1/metrics',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const result = decodeOrFail(() =>
          decodeOtlpMetrics(unpack(ctx), ctx.headers['content-type'], { nowMs: Date.now(), deltaAccumulator: deltaFor(org) }),
        );
        const refused = await storeMetrics(ctx, org, result);
        count('metrics', result.records.reduce((n, s) => n + s.values.length, 0) - refused, result.rejected);
        answerOtlp(ctx, 'metrics', result);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/write',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        // Remote write bodies are snappy-compressed by contract; the decoder unpacks them.
        const result = decodeOrFail(() => decodeRemoteWrite(ctx.body!, { nowMs: Date.now(), maxDecompressedBytes: maxBodyBytes }));
        const refused = await storeMetrics(ctx, org, result);
        count('metrics', result.records.reduce((n, s) => n + s.values.length, 0) - refused, result.rejected);
        answerPush(ctx, result);
      },
    },
    {
      method: 'POST',
      path: '/loki/api/v1/push',
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const org = orgOf(ctx);
        const contentType = ctx.headers['content-type'];
        // Protobuf pushes are snappy-compressed by contract; JSON ones may carry gzip.
        const body = isProtobuf(contentType) ? ctx.body! : unpack(ctx);
        const result = decodeOrFail(() => decodeLokiPush(body, contentType, { nowMs: Date.now(), maxDecompressedBytes: maxBodyBytes }));
        await store(ctx, () => storage.appendLogs(org, result.records));
        count('logs', result.records.length, result.rejected);
        answerPush(ctx, result);
      },
    },
  ];
}
