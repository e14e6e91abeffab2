import { encodeExportResponse, exportResponseJson, type DiscardReason } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { callerOrg } from '../auth/callerOrg.js';
import type { IngestOutcome, IngestRequest, IngestService } from '../ingest/ingestService.js';
import { isProtobuf } from '../ingest/ingestService.js';
import { describeReason } from '../ingest/limits.js';
import { remoteWriteVersion, writtenCounts, writtenHeaders } from './remoteWrite.js';

/**
 * Ingest routes take the formats collectors already speak; the IngestService stores what they
 * carry. Rejected records are reported OTLP-style as a partial success (200, as the OTLP
 * specification requires), remote-write and Loki-style as a 400 naming the first rejected
 * records after the valid ones were stored, as Prometheus and Loki do, so a sender does not
 * retry them forever.
 */
const INGEST_NEEDS_ORG = 'ingestion needs an org API key; the system key has no org to write to';

/** ingestRequest reads what the service needs: the org every ingest endpoint writes to is the caller key's own. */
function ingestRequest(ctx: RequestContext): IngestRequest {
  return {
    org: callerOrg(ctx.principal, INGEST_NEEDS_ORG),
    body: ctx.body!,
    contentType: ctx.headers['content-type'],
    contentEncoding: ctx.headers['content-encoding'],
    log: ctx.log,
  };
}

/**
 * rejectedMessage explains a request's rejections: the reasons with their counts and the
 * settings behind them, then the first rejected records, each named.
 */
function rejectedMessage({ result, limits }: IngestOutcome): string {
  const reasons = (Object.entries(result.discarded) as Array<[DiscardReason, number]>)
    .map(([reason, n]) => `${describeReason(reason, limits)}: ${n}`)
    .join(', ');
  return `${reasons}; ${result.errors.join('; ')}`;
}

/** answerOtlp writes the OTLP/HTTP response in the request's encoding, with partial success when some records were rejected. */
function answerOtlp(ctx: RequestContext, signal: 'logs' | 'metrics', outcome: IngestOutcome): void {
  const { rejected } = outcome.result;
  const message = rejected > 0 ? rejectedMessage(outcome) : '';
  if (isProtobuf(ctx.headers['content-type'])) {
    ctx.res.send(200, encodeExportResponse(rejected, message), 'application/x-protobuf');
  } else {
    ctx.res.json(200, exportResponseJson(signal, rejected, message));
  }
}

/**
 * answerPush is the remote-write / Loki push answer: 204, or 400 naming what was dropped out of
 * how much; `headers` go with either.
 */
function answerPush(ctx: RequestContext, outcome: IngestOutcome, unit: string, headers: Record<string, string> = {}): void {
  if (outcome.result.rejected === 0) {
    ctx.res.send(204, '', 'text/plain', headers);
    return;
  }
  throw new ApiError('BAD_REQUEST', `${outcome.result.rejected} of ${outcome.total} ${unit} rejected (${rejectedMessage(outcome)})`, { headers });
}

/**
 * INGEST_PATHS are the write endpoints, one per protocol. A process whose role has no ingest
 * routes answers them with the role that serves them (src/roles/elsewhereRoutes.ts).
 */
export const INGEST_PATHS = { otlpLogs: '/v1/logs', otlpMetrics: '/v1/metrics', remoteWrite: '/api/v1/write', lokiPush: '/loki/api/v1/push' } as const;

export function ingestRoutes(ingest: IngestService): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: INGEST_PATHS.otlpLogs,
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => answerOtlp(ctx, 'logs', await ingest.otlpLogs(ingestRequest(ctx))),
    },
    {
      method: 'POST',
      path: INGEST_PATHS.otlpMetrics,
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => answerOtlp(ctx, 'metrics', await ingest.otlpMetrics(ingestRequest(ctx))),
    },
    {
      method: 'POST',
      path: INGEST_PATHS.remoteWrite,
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => {
        const outcome = await ingest.remoteWrite(ingestRequest(ctx), remoteWriteVersion(ctx));
        answerPush(ctx, outcome, 'samples', writtenHeaders(writtenCounts(outcome.result, outcome.stored, outcome.exemplarsStored, outcome.histogramsStored)));
      },
    },
    {
      method: 'POST',
      path: INGEST_PATHS.lokiPush,
      auth: 'key',
      body: 'raw',
      handler: async (ctx) => answerPush(ctx, await ingest.lokiPush(ingestRequest(ctx)), 'entries'),
    },
  ];
}
