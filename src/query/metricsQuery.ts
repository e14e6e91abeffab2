import { parsedPromQL, promqlValueType } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext } from '../http/router.js';
import { callerOrg } from '../auth/callerOrg.js';
import { requireEventStream } from './accept.js';
import { writesValueText } from './compactEvents.js';
import { optionalBoolean, requireObject, requireQueryText, resultFormat } from './request.js';
import { QUERY_NEEDS_ORG, holdingSlot, orgStreamOptions, type QueryDeps } from './queryDeps.js';
import { metricSeriesSource } from './metricSource.js';
import { streamSeriesSlices } from './seriesStream.js';
import { orgPlanDeps } from './orgQueryLimits.js';
import { QueryStream, waitForSlot } from './stream.js';
import { resolveWindow } from './timeRange.js';

/**
 * metricsQuery serves POST /api/v1/metrics/query. Everything that can be checked before a
 * byte is streamed is checked first (body, window, parse, types, Accept, org concurrency), so
 * those failures are JSON errors with their status. Then the steps are cut into slices, each
 * slice's data shared with a worker (or, for a big slice of a query that is exact in parts,
 * with one worker per series shard), and the results streamed in slice order as points, or
 * folded into one summary per series. A query whose s equals e is an instant query, evaluated
 * as Prometheus' /query evaluates it (series in sort() and topk() order).
 * With the results cache on, steps it holds are streamed from it and only the rest evaluated
 * (src/query/cache).
 */
export async function metricsQuery(ctx: RequestContext, deps: QueryDeps): Promise<void> {
  const body = requireObject(parseJsonBody(ctx.body!));
  const q = requireQueryText(body);
  const summary = optionalBoolean(body.summary, 'summary');
  const format = resultFormat(body);
  const window = resolveWindow(body, { defaultMaxDataPoints: deps.defaultMaxDataPoints, maxPointsPerSeries: deps.maxPointsPerSeries });
  const expr = parsedPromQL(q);
  const type = promqlValueType(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw new ApiError('COMPILE_ERROR', `a metrics query must yield an instant vector or a scalar, not a ${type === 'matrix' ? 'range vector' : type}`, {
      position: expr.pos,
    });
  }
  requireEventStream(ctx.headers.accept);
  const org = callerOrg(ctx.principal, QUERY_NEEDS_ORG);
  const limits = deps.queryLimitsFor(org);
  const release = await waitForSlot(ctx, deps.gate, org, limits);
  const { source, stream } = holdingSlot(release, () => {
    // Points are written as text unless the answer is folded into per-series statistics or sent as doubles.
    const source = metricSeriesSource({ ...orgPlanDeps(deps, limits, 'metrics'), valueText: !summary && writesValueText(format) }, org, q, expr, window);
    const stream = new QueryStream(ctx, {
      failedSegments: () => source.failedSegments(),
      endpoint: 'metrics',
      ...orgStreamOptions(deps, limits, release),
      terminalErrorEvent: summary,
    });
    return { source, stream };
  });
  await streamSeriesSlices(stream, source, window, summary, format);
}
