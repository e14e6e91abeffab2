import { checkLogQL, logqlQueryKind, parseLogQL, type LogQLExpr, type RawRow } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import type { QueryCollector } from '../query/collect.js';
import type { QueryLimitsFor } from '../query/orgQueryLimits.js';
import { instantWindow, type QueryWindow, type WindowLimits } from '../query/timeRange.js';
import { lokiDirection, lokiLimit, lokiParams, lokiRange, lokiStepMs, nowNs, nsToMsFloor, parseLokiTime, requireQuery, type LokiRange } from './lokiParams.js';
import { isScalarExpr, matrixResult, rowsBytes, scalarResult, seriesPoints, statsBlock, streamsResult, vectorResult } from './lokiRender.js';

/**
 * The Loki query endpoints run LogQL through the same collector the tool gateway uses, so
 * they share the org's concurrency gate, deadline, memory budget, retention and limits with
 * the SSE endpoints, and answer with one JSON document as Loki does.
 */

export interface LokiQueryDeps {
  collector: QueryCollector;
  queryLimitsFor: QueryLimitsFor;
  windowLimits: WindowLimits;
}

/** parseChecked parses and checks a LogQL expression; errors carry their message as Loki's do. */
export function parseChecked(q: string, rangeQuery: boolean): LogQLExpr {
  const expr = parseLogQL(q);
  checkLogQL(expr, q, { rangeQuery });
  return expr;
}

/** clientSignal aborts when the client goes away, so its query stops taking workers. */
export function clientSignal(ctx: RequestContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.onAbort(() => controller.abort(new ApiError('CLIENT_CLOSED', 'client closed the connection')));
  return controller.signal;
}

/** boundedWindow refuses a step that would give more points than the server allows per series. */
export function boundedWindow(startMs: number, endMs: number, stepMs: number, limits: WindowLimits): QueryWindow {
  const points = Math.floor((endMs - startMs) / stepMs) + 1;
  if (points > limits.maxPointsPerSeries) {
    throw new ApiError(
      'BAD_REQUEST',
      `exceeded maximum resolution of ${limits.maxPointsPerSeries} points per timeseries. Try decreasing the query resolution (?step=XX)`,
    );
  }
  return { startMs, endMs, stepMs, points, instant: false };
}

/** checkedLimit refuses a line limit beyond the org's maximum, naming the setting. */
function checkedLimit(limit: number, org: string, deps: LokiQueryDeps): number {
  const limits = deps.queryLimitsFor(org);
  if (limit > limits.maxLogLimit) throw new ApiError('BAD_REQUEST', `max entries limit per query exceeded, limit > max_entries_limit_per_query (${limit} > ${limits.maxLogLimit}, ${limits.originOf('maxLogLimit')})`);
  return limit;
}

/**
 * readLogRows runs a checked log query over Loki's half-open [start, end) and returns at most
 * `limit` rows in `direction` order; an answer that would miss unreadable segments fails.
 */
export async function readLogRows(
  org: string,
  deps: LokiQueryDeps,
  q: string,
  expr: LogQLExpr,
  range: LokiRange,
  limit: number,
  direction: 'forward' | 'backward',
  signal: AbortSignal,
): Promise<RawRow[]> {
  const startMs = nsToMsFloor(range.startNs);
  // Loki's end is exclusive: the last nanosecond read is the one before it.
  const endMs = Math.max(startMs, nsToMsFloor(range.endNs - 1n));
  const window = { startMs, endMs, stepMs: 1000, points: 1, instant: false };
  const { rows, failedSegments } = await deps.collector.logqlRows(org, q, expr, window, { limit, reverse: direction === 'backward', fields: undefined }, signal);
  partialIsUnavailable(failedSegments);
  return rows;
}

/**
 * queryRange serves /loki/api/v1/query_range: log queries return streams (at most `limit`
 * lines in `direction` order), metric queries a matrix over [start, end] at `step`.
 */
export async function queryRange(ctx: RequestContext, org: string, deps: LokiQueryDeps): Promise<unknown> {
  const started = performance.now();
  const params = lokiParams(ctx);
  const q = requireQuery(params);
  const range = lokiRange(params);
  const limit = lokiLimit(params);
  const direction = lokiDirection(params);
  const stepMs = lokiStepMs(params, range);
  const expr = parseChecked(q, true);
  const startMs = nsToMsFloor(range.startNs);
  const signal = clientSignal(ctx);
  if (logqlQueryKind(expr) === 'log') {
    const rows = await readLogRows(org, deps, q, expr, range, checkedLimit(limit, org, deps), direction, signal);
    const figures = { execSeconds: (performance.now() - started) / 1000, entries: rows.length, bytes: rowsBytes(rows), splits: 1 };
    return { status: 'success', data: { ...streamsResult(rows), stats: statsBlock(figures) } };
  }
  const window = boundedWindow(startMs, nsToMsFloor(range.endNs), stepMs, deps.windowLimits);
  const { series, failedSegments } = await deps.collector.logqlSeries(org, q, expr, window, deps.queryLimitsFor(org).maxSeries, signal);
  partialIsUnavailable(failedSegments);
  const figures = { execSeconds: (performance.now() - started) / 1000, entries: seriesPoints(series), bytes: 0, splits: 1 };
  // A scalar over a range is a matrix of one unlabelled series, as in Prometheus and Loki.
  return { status: 'success', data: { ...matrixResult(series), stats: statsBlock(figures) } };
}

/**
 * query serves /loki/api/v1/query: a metric query evaluated at `time` (now by default),
 * answered as a vector or a scalar. Log queries are refused as Loki refuses them here.
 */
export async function instantQuery(ctx: RequestContext, org: string, deps: LokiQueryDeps): Promise<unknown> {
  const started = performance.now();
  const params = lokiParams(ctx);
  const q = requireQuery(params);
  const timeText = params.get('time');
  const atNs = timeText === null || timeText === '' ? nowNs() : parseLokiTime(timeText, 'time');
  lokiDirection(params);
  lokiLimit(params);
  const expr = parseChecked(q, false);
  if (logqlQueryKind(expr) === 'log') {
    throw new ApiError('BAD_REQUEST', 'log queries are not supported as an instant query type, please change your query to a range query type');
  }
  const atMs = nsToMsFloor(atNs);
  const { series, failedSegments } = await deps.collector.logqlSeries(org, q, expr, instantWindow(atMs), deps.queryLimitsFor(org).maxSeries, clientSignal(ctx));
  partialIsUnavailable(failedSegments);
  const figures = { execSeconds: (performance.now() - started) / 1000, entries: series.length, bytes: 0, splits: 1 };
  const result = isScalarExpr(expr) ? scalarResult(series, atMs) : vectorResult(series, atMs);
  return { status: 'success', data: { ...result, stats: statsBlock(figures) } };
}

/** partialIsUnavailable fails an answer that would miss unreadable segments: Loki clients have no way to learn it is partial. */
export function partialIsUnavailable(failedSegments: number): void {
  if (failedSegments > 0) {
    throw new ApiError('SERVICE_UNAVAILABLE', `${failedSegments} stored segment(s) or holder(s) of recent data could not be read; retry or narrow the range`);
  }
}
