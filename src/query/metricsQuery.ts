import {
  gatherMetricShare,
  metricTaskData,
  parseAndCheckPromQL,
  planSlices,
  promqlValueType,
  refersToQueryWindow,
  selectionsFor,
  shardMergeFor,
  shareSize,
  type QueryTask,
  type Storage,
} from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext } from '../http/router.js';
import type { ServiceMetrics } from '../metrics.js';
import { requireEventStream } from './accept.js';
import type { QueryPool } from './pool.js';
import { requireObject, requireQueryText } from './request.js';
import { shardingPolicy, sliceTasks, streamSeriesSlices } from './seriesStream.js';
import { OrgGate, QueryStream } from './stream.js';
import { resolveWindow } from './timeRange.js';

export interface QueryDeps {
  storage: Storage;
  pool: QueryPool;
  metrics: ServiceMetrics;
  gate: OrgGate;
  heartbeatMs: number;
  timeoutMs: number;
  defaultMaxDataPoints: number;
  maxPointsPerSeries: number;
  maxSamples: number;
  lookbackMs: number;
  /** shardMinSamples is the slice size from which a query that time slices cannot spread is split by series; 0 never splits. */
  shardMinSamples: number;
}

/** MIN_STEPS_PER_SLICE keeps slices big enough that task overhead stays a small fraction. */
export const MIN_STEPS_PER_SLICE = 30;

export function orgOf(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p?.kind !== 'org') throw new ApiError('FORBIDDEN', 'queries need an org API key; the system key has no org');
  return p.orgId;
}

export function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ApiError('BAD_REQUEST', `${field} must be a boolean`);
  return value;
}

/**
 * metricsQuery serves POST /api/v1/metrics/query. Everything that can be checked before a
 * byte is streamed is checked first (body, window, parse, types, Accept, org concurrency), so
 * those failures are JSON errors with their status. Then the steps are cut into slices, each
 * slice's data shared with a worker (or, for a big slice of a query that is exact in parts,
 * with one worker per series shard), and the results streamed in slice order as points, or
 * folded into one summary per series.
 */
export async function metricsQuery(ctx: RequestContext, deps: QueryDeps): Promise<void> {
  const body = requireObject(parseJsonBody(ctx.body!));
  const q = requireQueryText(body);
  const summary = optionalBoolean(body.summary, 'summary');
  const window = resolveWindow(body, { defaultMaxDataPoints: deps.defaultMaxDataPoints, maxPointsPerSeries: deps.maxPointsPerSeries });
  const expr = parseAndCheckPromQL(q);
  const type = promqlValueType(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw new ApiError('COMPILE_ERROR', `a metrics query must yield an instant vector or a scalar, not a ${type === 'matrix' ? 'range vector' : type}`, {
      position: expr.pos,
    });
  }
  requireEventStream(ctx.headers.accept);
  const org = orgOf(ctx);
  const release = deps.gate.acquire(org, deps.pool.overloaded);
  const querier = deps.storage.metrics(org);
  const stream = new QueryStream(ctx, {
    failedSegments: () => querier.failedSegments.length,
    endpoint: 'metrics',
    heartbeatMs: deps.heartbeatMs,
    timeoutMs: deps.timeoutMs,
    metrics: deps.metrics,
    release,
    terminalErrorEvent: summary,
  });
  const slices = refersToQueryWindow(expr)
    ? [{ startMs: window.startMs, endMs: window.endMs }]
    : planSlices(window.startMs, window.endMs, window.stepMs, deps.pool.threads * 4, MIN_STEPS_PER_SLICE);
  const planCtx = { queryStartMs: window.startMs, queryEndMs: window.endMs, lookbackMs: deps.lookbackMs, defaultSubqueryStepMs: 60_000 };
  // Series shards pay only where time slices leave workers idle (few steps) and the slice
  // holds enough samples that evaluation, not task overhead, dominates.
  const sharding = shardingPolicy(slices.length, deps.pool.threads, deps.shardMinSamples, () => shardMergeFor(expr));
  await streamSeriesSlices(
    stream,
    deps.pool,
    slices,
    async (slice) => {
      const selections = selectionsFor(expr, slice.startMs, slice.endMs, planCtx);
      // Segment files not yet open are read off this thread first; the share below then finds them open.
      await querier.prepare(selections);
      const share = gatherMetricShare(querier, selections);
      return sliceTasks(
        sharding,
        shareSize(share),
        (shard) => metricTaskData(share, shard),
        (data, shard): QueryTask => ({
          kind: 'promql-range',
          query: q,
          startMs: slice.startMs,
          endMs: slice.endMs,
          stepMs: window.stepMs,
          lookbackMs: deps.lookbackMs,
          maxSamples: deps.maxSamples,
          data,
          shard,
        }),
      );
    },
    summary,
  );
}
