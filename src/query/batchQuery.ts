import { ApiError, toApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import { Responder } from '../http/responder.js';
import type { RequestContext } from '../http/router.js';
import { SseStream } from '../http/sse.js';
import { callerOrg } from '../auth/callerOrg.js';
import { requireEventStream } from './accept.js';
import { BatchMember } from './batchMember.js';
import { QUERY_NEEDS_ORG } from './queryDeps.js';
import { requireObject } from './request.js';

/**
 * MAX_BATCH_QUERIES bounds the queries of one batch: a dashboard's panels fit with room to
 * spare, and every query still waits for a slot of the org's own concurrency limit.
 */
export const MAX_BATCH_QUERIES = 100;

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** BatchItem is one query of a batch: its id, which endpoint answers it, and that endpoint's body. */
export interface BatchItem {
  id: string;
  kind: 'metrics' | 'logs';
  body: Record<string, unknown>;
}

/** SingleQuery is an endpoint's handler run on a context of its own (the metrics or the logs query). */
export type SingleQuery = (ctx: RequestContext) => Promise<void>;

/**
 * parseBatch checks the batch's shape before anything streams: a `queries` array of 1 to
 * MAX_BATCH_QUERIES objects with unique ids and a kind. Each query's own fields are checked by
 * its endpoint later, so one bad query fails alone.
 */
export function parseBatch(raw: unknown): BatchItem[] {
  const body = requireObject(raw);
  const queries = body.queries;
  if (!Array.isArray(queries) || queries.length === 0) throw new ApiError('BAD_REQUEST', 'queries must be a non-empty array of queries');
  if (queries.length > MAX_BATCH_QUERIES) throw new ApiError('VALIDATION_FAILED', `a batch may hold at most ${MAX_BATCH_QUERIES} queries, not ${queries.length}`);
  const seen = new Set<string>();
  return queries.map((item: unknown, index): BatchItem => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new ApiError('BAD_REQUEST', `queries[${index}] must be an object`);
    const { id, kind, ...rest } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) throw new ApiError('BAD_REQUEST', `queries[${index}].id must be 1 to 64 letters, digits or _ . : -`);
    if (seen.has(id)) throw new ApiError('BAD_REQUEST', `queries[${index}].id "${id}" is used twice`);
    seen.add(id);
    if (kind !== 'metrics' && kind !== 'logs') throw new ApiError('BAD_REQUEST', `queries[${index}].kind must be "metrics" or "logs"`);
    return { id, kind, body: rest };
  });
}

/**
 * batchQuery serves POST /api/v1/query/batch: several metrics and logs queries answered in one
 * event stream, so a dashboard's panels do not queue for the browser's few connections per
 * origin. The queries run concurrently, each exactly as its own endpoint runs it (limits, org
 * slots, deadline, cache, formats), and their events interleave as they are produced, each
 * tagged with its query's id. Every query ends with its own `done` (or `error`) event; the
 * batch ends with an untagged `done` once all have ended. A client that leaves cancels them all.
 */
export async function batchQuery(ctx: RequestContext, handlers: Record<BatchItem['kind'], SingleQuery>, options: { heartbeatMs: number; stallTimeoutMs: number }): Promise<void> {
  const items = parseBatch(parseJsonBody(ctx.body!));
  requireEventStream(ctx.headers.accept);
  callerOrg(ctx.principal, QUERY_NEEDS_ORG);
  const members: Responder[] = [];
  let pending = items.length;
  const shared = new SseStream(ctx.res, {
    heartbeatMs: options.heartbeatMs,
    stallTimeoutMs: options.stallTimeoutMs,
    onStall: () => ctx.log.warn({ stallTimeoutMs: options.stallTimeoutMs }, 'query batch cancelled: its client stopped reading'),
    // The batch's client left or stalled: every query still running is cancelled with it.
    onClose: () => {
      for (const member of members) member.markAborted();
    },
  });
  shared.open();
  const memberDone = (): void => {
    pending--;
    if (pending === 0) shared.end({ type: 'done', data: { status: 'ok' } });
  };
  // The queries' own contexts: no compression (the batch compresses once), an event stream accepted.
  const headers: Record<string, string> = { ...ctx.headers, accept: 'text/event-stream' };
  delete headers['accept-encoding'];
  await Promise.all(
    items.map(async (item, index) => {
      let responder: Responder | undefined = undefined;
      const sink = new BatchMember(item.id, shared, () => responder?.markAborted());
      responder = new Responder(sink, `${ctx.queryId}.${index}`, memberDone);
      members.push(responder);
      if (shared.closed) responder.markAborted();
      const sub: RequestContext = {
        ...ctx,
        headers,
        params: {},
        queryId: responder.queryId,
        log: ctx.log.child({ batchQuery: item.id }),
        res: responder,
        body: Buffer.from(JSON.stringify(item.body)),
      };
      try {
        await handlers[item.kind](sub);
      } catch (err) {
        const apiError = toApiError(err, sub.queryId);
        if (apiError.status >= 500) sub.log.error({ err, code: apiError.code }, 'batch query failed');
        if (!responder.finished) responder.error(apiError);
      }
    }),
  );
}
