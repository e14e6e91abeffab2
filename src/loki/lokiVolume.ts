import { parseLogQL, printLogQL, type Labels, type SeriesColumns, type Storage } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import { labelNames, optionalSelector } from './lokiCatalog.js';
import { lokiLimit, lokiParams, lokiRange, lokiStepMs, nsToMsFloor, requireQuery, type LokiRange } from './lokiParams.js';
import { boundedWindow, clientSignal, parseChecked, partialIsUnavailable, type LokiQueryDeps } from './lokiQuery.js';
import { instantWindow, type QueryWindow } from '../query/timeRange.js';
import { sampleValue } from './lokiRender.js';

/**
 * /index/volume and /index/volume_range: how many bytes of log lines the streams matching a
 * selector hold, summed by label (Grafana's Logs Drilldown ranks services and labels with it).
 * The sums are one `bytes_over_time` metric query through the ordinary collector, so they
 * cover the write head as well as stored segments and run under the org's query limits; a
 * volume is grouped before it leaves the workers, so the answer has at most one series per
 * group whatever the number of lines.
 */

export interface VolumeDeps extends LokiQueryDeps {
  storage: Storage;
}

/**
 * MAX_GROUP_LABELS bounds the labels one volume sums by: aggregateBy=labels over a selector
 * whose lines carry many attribute names is asked to name its labels with targetLabels.
 */
const MAX_GROUP_LABELS = 50;

/** LABEL_NAME is what a `by (...)` clause accepts; stored tag names are sanitized to it at ingest. */
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type AggregateBy = 'series' | 'labels';

interface VolumeRequest {
  q: string;
  range: LokiRange;
  limit: number;
  aggregateBy: AggregateBy;
  /** groupBy are the label names the volumes are summed by. */
  groupBy: string[];
}

/** readVolumeRequest reads Loki's volume parameters: a stream selector, `targetLabels`, `aggregateBy` and `limit`. */
function readVolumeRequest(ctx: RequestContext, org: string, storage: Storage): VolumeRequest {
  const params = lokiParams(ctx);
  const text = requireQuery(params);
  const matchers = optionalSelector(text);
  // Printed back from the parsed selector, so the text spliced into the volume query is canonical.
  const q = printLogQL(parseLogQL(text));
  const range = lokiRange(params);
  const limit = lokiLimit(params);
  const aggregateText = params.get('aggregateBy') ?? '';
  if (aggregateText !== '' && aggregateText !== 'series' && aggregateText !== 'labels') {
    throw new ApiError('BAD_REQUEST', `invalid aggregateBy "${aggregateText}": use series or labels`);
  }
  const aggregateBy: AggregateBy = aggregateText === 'labels' ? 'labels' : 'series';
  const targets = (params.get('targetLabels') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of targets) if (!LABEL_NAME.test(name)) throw new ApiError('BAD_REQUEST', `invalid target label name "${name}"`);
  let groupBy: string[];
  if (targets.length > 0) groupBy = targets;
  else if (aggregateBy === 'series') groupBy = matchers.map((m) => m.name);
  else groupBy = labelNames(storage, org, matchers, range).filter((name) => LABEL_NAME.test(name));
  const unique = [...new Set(groupBy)];
  if (unique.length > MAX_GROUP_LABELS) {
    throw new ApiError('BAD_REQUEST', `the volume would be summed by ${unique.length} labels, over the limit of ${MAX_GROUP_LABELS}; name the labels with targetLabels`);
  }
  return { q, range, limit, aggregateBy, groupBy: unique };
}

/** volumeExpression is the metric query summing line bytes per group over `rangeMs` windows. */
function volumeExpression(q: string, groupBy: readonly string[], rangeMs: number): string {
  return `sum by (${groupBy.join(', ')}) (bytes_over_time(${q} [${Math.max(1, Math.round(rangeMs))}ms]))`;
}

/**
 * regroup turns the per-group series into the answer's series: by label-value pairs they are
 * already; by labels each series adds its bytes to every label it carries, named with an
 * empty value as Loki writes them.
 */
function regroup(series: readonly SeriesColumns[], request: VolumeRequest): Array<{ metric: Labels; points: Map<number, number> }> {
  const out = new Map<string, { metric: Labels; points: Map<number, number> }>();
  const add = (metric: Labels, s: SeriesColumns): void => {
    const key = JSON.stringify(Object.entries(metric).sort());
    let entry = out.get(key);
    if (entry === undefined) out.set(key, (entry = { metric, points: new Map() }));
    for (let i = 0; i < s.timestampsMs.length; i++) {
      if (Number.isFinite(s.values[i])) entry.points.set(s.timestampsMs[i], (entry.points.get(s.timestampsMs[i]) ?? 0) + s.values[i]);
    }
  };
  for (const s of series) {
    if (request.aggregateBy === 'series') {
      add(s.labels, s);
      continue;
    }
    for (const name of request.groupBy) if (s.labels[name] !== undefined && s.labels[name] !== '') add({ [name]: '' }, s);
  }
  return [...out.values()];
}

/** total is the bytes of a group over the whole answer, the order Loki ranks volumes in. */
function total(points: Map<number, number>): number {
  let n = 0;
  for (const v of points.values()) n += v;
  return n;
}

/** topVolumes keeps the `limit` largest groups, largest first (ties by labels, so the answer is stable). */
function topVolumes(groups: Array<{ metric: Labels; points: Map<number, number> }>, limit: number): Array<{ metric: Labels; points: Map<number, number> }> {
  return groups
    .map((g) => ({ g, sum: total(g.points), key: JSON.stringify(Object.entries(g.metric).sort()) }))
    .sort((a, b) => b.sum - a.sum || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, limit)
    .map((x) => x.g);
}

/** runVolume evaluates the volume query over `window` and regroups its series. */
async function runVolume(ctx: RequestContext, org: string, deps: VolumeDeps, request: VolumeRequest, rangeMs: number, window: QueryWindow) {
  if (request.groupBy.length === 0) return [];
  const text = volumeExpression(request.q, request.groupBy, rangeMs);
  const expr = parseChecked(text, true);
  const { series, failedSegments } = await deps.collector.logqlSeries(org, text, expr, window, deps.queryLimitsFor(org).maxSeries, clientSignal(ctx));
  partialIsUnavailable(failedSegments);
  return topVolumes(regroup(series, request), request.limit);
}

/** volume serves /index/volume: one vector of the bytes each group holds in [start, end], stamped at end. */
export async function volume(ctx: RequestContext, org: string, deps: VolumeDeps): Promise<unknown> {
  const request = readVolumeRequest(ctx, org, deps.storage);
  const startMs = nsToMsFloor(request.range.startNs);
  const endMs = nsToMsFloor(request.range.endNs);
  const groups = await runVolume(ctx, org, deps, request, endMs - startMs, instantWindow(endMs));
  const result = groups.map((g) => ({ metric: g.metric, value: [endMs / 1000, sampleValue(total(g.points))] as [number, string] }));
  return { status: 'success', data: { resultType: 'vector', result } };
}

/** volumeRange serves /index/volume_range: a matrix of the bytes each group holds per `step`. */
export async function volumeRange(ctx: RequestContext, org: string, deps: VolumeDeps): Promise<unknown> {
  const request = readVolumeRequest(ctx, org, deps.storage);
  const stepMs = lokiStepMs(lokiParams(ctx), request.range);
  const window = boundedWindow(nsToMsFloor(request.range.startNs), nsToMsFloor(request.range.endNs), stepMs, deps.windowLimits);
  const groups = await runVolume(ctx, org, deps, request, stepMs, window);
  const result = groups.map((g) => ({
    metric: g.metric,
    values: [...g.points.entries()].sort((a, b) => a[0] - b[0]).map(([ms, v]) => [ms / 1000, sampleValue(v)] as [number, string]),
  }));
  return { status: 'success', data: { resultType: 'matrix', result } };
}
