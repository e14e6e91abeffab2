import { parsedPromQL, promqlValueType, type PromQLExpr, type SeriesColumns, type Storage } from '../../engine/index.js';
import type { RequestContext } from '../http/router.js';
import { whileServing } from '../http/servingSignal.js';
import { QueryCollector, type CollectDeps, type CollectedSeries } from '../query/collect.js';
import type { OrgQueryLimits } from '../meta/orgSettingsView.js';
import { instantWindow, type QueryWindow } from '../query/timeRange.js';
import { PromError, invalidParam, toPromError } from './promError.js';
import type { PromParams } from './params.js';
import { matrixData, renderMatrix, renderScalar, renderString, successBody, successJson, textData, vectorData, type PromData } from './render.js';

/**
 * Evaluation of /query and /query_range: the same plans, pool, per-org gate, memory budget and
 * deadline as the SSE endpoints (through QueryCollector), the whole result then rendered as one
 * Prometheus JSON body.
 */

export interface PromQueryDeps extends CollectDeps {
  /** maxSeries bounds the series one answer may hold. */
  maxSeries: number;
  /** maxPointsPerSeries is the service's own bound on steps per series. */
  maxPointsPerSeries: number;
}

/** PROM_MAX_POINTS is Prometheus' own bound on steps per series in a range query. */
const PROM_MAX_POINTS = 11_000;

/** parseQueryParam parses and type-checks `query`; Prometheus rejects parse and type errors as bad data. */
export function parseQueryParam(params: PromParams): { text: string; expr: PromQLExpr } {
  const text = params.get('query') ?? '';
  try {
    return { text, expr: parsedPromQL(text) };
  } catch (err) {
    throw invalidParam('query', toPromError(err, 'check').message);
  }
}

/** queryTimeoutMs is the lesser of the service's deadline and the request's `timeout`. */
function queryTimeoutMs(params: PromParams, serviceMs: number): number {
  const requested = params.duration('timeout');
  if (requested === undefined || requested <= 0) return serviceMs;
  return Math.min(serviceMs, requested);
}


async function evaluate(ctx: RequestContext, deps: PromQueryDeps, org: string, text: string, expr: PromQLExpr, window: QueryWindow, timeoutMs: number): Promise<CollectedSeries> {
  // The request's `timeout` may only shorten the org's deadline (queryTimeoutMs); every other limit stays the org's.
  const collector = new QueryCollector({ ...deps, queryLimitsFor: (o) => ({ ...deps.queryLimitsFor(o), timeoutMs }) });
  try {
    // Matrices and vectors are written from the workers' text of their points (matrixData, vectorData).
    // The evaluation stops when the client leaves or the server stops waiting.
    return await whileServing(
      ctx,
      () => new PromError('canceled', 'query was canceled: the client closed the connection'),
      (signal) => collector.promql(org, text, expr, window, deps.queryLimitsFor(org).maxSeries, signal, { sampleText: true }),
    );
  } catch (err) {
    throw toPromError(err, 'run');
  }
}

/** INFO_PREFIX marks the evaluator's informational annotations; the rest are warnings. */
const INFO_PREFIX = 'PromQL info: ';

/**
 * answerBody renders a query's data with its annotations split as Prometheus splits them
 * (`warnings`, `infos`), plus a warning when unreadable segments left the answer partial.
 */
function answerBody(data: PromData, collected: CollectedSeries): Buffer {
  const warnings = collected.annotations.filter((a) => !a.startsWith(INFO_PREFIX));
  const infos = collected.annotations.filter((a) => a.startsWith(INFO_PREFIX));
  if (collected.failedSegments > 0) warnings.push(`${collected.failedSegments} stored segment(s) or holder(s) of recent data could not be read; the result is partial`);
  return successJson(data, warnings, infos);
}

/** instantQuery serves /prometheus/api/v1/query. */
export async function instantQuery(ctx: RequestContext, deps: PromQueryDeps, storage: Storage, org: string, params: PromParams): Promise<string | Buffer> {
  const { text, expr } = parseQueryParam(params);
  const timeMs = params.time('time', Date.now());
  const timeoutMs = queryTimeoutMs(params, deps.queryLimitsFor(org).timeoutMs);
  const type = promqlValueType(expr);
  if (type === 'string') {
    if (expr.type !== 'StringLiteral') throw new PromError('execution', 'only string literals evaluate to strings');
    return successBody(renderString(expr.value, timeMs));
  }
  if (type === 'matrix') return successBody(await rangeSelectorAt(storage, org, expr, timeMs, deps.queryLimitsFor(org)));
  const collected = await evaluate(ctx, deps, org, text, expr, instantWindow(timeMs), timeoutMs);
  const data = type === 'scalar' ? textData(renderScalar(collected.series, timeMs)) : vectorData(collected.series, timeMs);
  return answerBody(data, collected);
}

/**
 * rangeSelectorAt answers an instant query for a range selector (`up[5m]`, with offset or
 * `@`): the raw samples in the left-open window (t - range, t], as Prometheus returns them.
 * Other range-vector expressions (subqueries) are not evaluated at an instant yet.
 */
async function rangeSelectorAt(storage: Storage, org: string, expr: PromQLExpr, timeMs: number, limits: OrgQueryLimits): Promise<string> {
  const maxSamples = limits.maxSamples;
  if (expr.type !== 'MatrixSelector') {
    throw new PromError('execution', 'only a plain range selector (metric[5m]) can be queried at an instant; wrap a subquery in a function such as max_over_time');
  }
  const selector = expr.selector;
  // At an instant, `@ start()` and `@ end()` are the evaluation time itself.
  const endMs = (selector.at?.kind === 'timestamp' ? selector.at.ms : timeMs) - selector.offsetMs;
  // Nothing older than the org's metrics retention is returned, as by every other query path.
  const retentionMs = limits.retentionMs.metrics;
  const startMs = Math.max(endMs - expr.rangeMs, retentionMs > 0 ? Date.now() - retentionMs : -Infinity);
  const matchers = selector.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
  const view = storage.metrics(org);
  // Brings the view up to date first (on a query process: the catalog and the holders' heads).
  await view.prepare([{ matchers, minMs: startMs + 1, maxMs: endMs }]);
  const found = view.select(matchers, startMs + 1, endMs);
  let samples = 0;
  const series = found.map((s) => {
    const keep: number[] = [];
    for (let i = 0; i < s.timestampsMs.length; i++) if (s.timestampsMs[i] > startMs && s.timestampsMs[i] <= endMs) keep.push(i);
    samples += keep.length;
    // The same bound, and Prometheus' words, as an evaluation that loads too many samples.
    if (samples > maxSamples) throw new PromError('execution', 'query processing would load too many samples into memory in query execution');
    const out: SeriesColumns = {
      labels: s.labels,
      timestampsMs: Float64Array.from(keep, (i) => s.timestampsMs[i]),
      values: Float64Array.from(keep, (i) => s.values[i]),
    };
    if (s.histograms !== undefined) out.histograms = keep.map((i) => s.histograms![i]);
    return out;
  });
  return renderMatrix(series);
}

/** rangeQuery serves /prometheus/api/v1/query_range. */
export async function rangeQuery(ctx: RequestContext, deps: PromQueryDeps, org: string, params: PromParams): Promise<string | Buffer> {
  const startMs = requiredTime(params, 'start');
  const endMs = requiredTime(params, 'end');
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  const stepText = params.get('step');
  if (stepText === undefined || stepText === '') throw invalidParam('step', 'cannot parse "" to a valid duration');
  const stepMs = params.duration('step')!;
  if (!(stepMs > 0)) throw invalidParam('step', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
  const points = Math.floor((endMs - startMs) / stepMs) + 1;
  if ((endMs - startMs) / stepMs > PROM_MAX_POINTS) {
    throw new PromError('bad_data', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)');
  }
  if (points > deps.maxPointsPerSeries) {
    throw new PromError('bad_data', `exceeded this server's maximum of ${deps.maxPointsPerSeries} points per timeseries. Try decreasing the query resolution (?step=XX)`);
  }
  const timeoutMs = queryTimeoutMs(params, deps.queryLimitsFor(org).timeoutMs);
  const { text, expr } = parseQueryParam(params);
  const type = promqlValueType(expr);
  if (type !== 'vector' && type !== 'scalar') {
    const name = type === 'matrix' ? 'range vector' : type;
    throw invalidParam('query', `invalid expression type ${JSON.stringify(name)} for range query, must be Scalar or instant Vector`);
  }
  // A range query stays one even when start equals end, as in Prometheus (series ordered by labels).
  const window: QueryWindow = { startMs, endMs, stepMs, points, instant: false };
  const collected = await evaluate(ctx, deps, org, text, expr, window, timeoutMs);
  return answerBody(matrixData(collected.series), collected);
}

function requiredTime(params: PromParams, name: string): number {
  const text = params.get(name);
  if (text === undefined || text === '') throw invalidParam(name, 'cannot parse "" to a valid timestamp');
  return params.time(name, 0);
}
