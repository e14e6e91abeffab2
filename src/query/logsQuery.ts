import { checkLogQL, logqlQueryKind, parseLogQL, type Labels, type RawRow } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext } from '../http/router.js';
import { FrameBatcher, type FramedEvents } from '../http/sse.js';
import { requireEventStream } from './accept.js';
import { QUERY_NEEDS_ORG, holdingSlot, orgStreamOptions, type QueryDeps } from './queryDeps.js';
import { callerOrg } from '../auth/callerOrg.js';
import { runRawLogs, type LogPlanDeps } from './plans.js';
import { optionalBoolean, requireObject, requireQueryText, resultFormat } from './request.js';
import { CompactRowEncoder, writesValueText } from './compactEvents.js';
import { streamSeriesSlices } from './seriesStream.js';
import { logSeriesSource } from './metricSource.js';
import type { OrgQueryLimits } from '../meta/orgSettingsView.js';
import { orgPlanDeps } from './orgQueryLimits.js';
import { QueryStream, waitForSlot } from './stream.js';
import { resolveWindow } from './timeRange.js';

export type LogsQueryDeps = QueryDeps & LogPlanDeps;

const NS_PER_MS = 1_000_000n;


/** checkLimitShape refuses a limit that is not a count, before anything else about the request is looked at. */
function checkLimitShape(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ApiError('BAD_REQUEST', 'limit must be a non-negative integer');
}

/**
 * rowLimit is the rows a raw query returns: the request's limit, or the org's default (never
 * above its maximum, should an org set a default past a lower service maximum). A limit past
 * the maximum is refused, naming the setting, so one request cannot ask for everything.
 */
function rowLimit(value: unknown, limits: OrgQueryLimits): number {
  if (value === undefined || value === null || value === 0) return Math.min(limits.defaultLogLimit, limits.maxLogLimit);
  const asked = value as number;
  if (asked > limits.maxLogLimit) throw new ApiError('VALIDATION_FAILED', `limit may be at most ${limits.maxLogLimit} (${limits.originOf('maxLogLimit')})`);
  return asked;
}

function optionalFields(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((f) => typeof f !== 'string')) throw new ApiError('BAD_REQUEST', 'fields must be an array of strings');
  return value as string[];
}

/**
 * RawRowRenderer renders log rows as framed result events. Rows of one tag set share its tags
 * object, so the sorted JSON of those tags is built once, split where the row's `message`
 * goes; a row then costs its line's JSON and a concatenation. `timestamp_ns` exceeds 2^53,
 * so the payload is written by hand to keep it an exact JSON integer; tags keep their string
 * values (a log line's `message` of "200" stays a string).
 */
export class RawRowRenderer {
  private readonly parts = new WeakMap<Labels, { before: string; after: string }>();

  /** frame renders one row as a framed event. */
  frame(row: RawRow): string {
    let parts = this.parts.get(row.tags);
    if (!parts) this.parts.set(row.tags, (parts = splitAtMessage(row.tags)));
    let members = parts.before;
    if (row.line !== undefined) members += (members === '' ? '' : ',') + '"message":' + JSON.stringify(row.line);
    if (parts.after !== '') members += (members === '' ? '' : ',') + parts.after;
    return `data: {"type":"result","data":{"timestamp":${row.timestampNs / NS_PER_MS},"timestamp_ns":${row.timestampNs},"tags":{${members}}}}\n\n`;
  }

  /** events renders rows in batches of about a stream piece as the stream takes them, never a whole answer at once. */
  *events(rows: readonly RawRow[]): Generator<FramedEvents, void, undefined> {
    const batch = new FrameBatcher();
    for (const row of rows) {
      const full = batch.add(this.frame(row));
      if (full) yield full;
    }
    const rest = batch.take();
    if (rest) yield rest;
  }
}

/** splitAtMessage renders sorted tags as JSON members, those sorting before `message` apart from those after. */
function splitAtMessage(tags: Labels): { before: string; after: string } {
  const before: string[] = [];
  const after: string[] = [];
  for (const key of Object.keys(tags).sort()) (key < 'message' ? before : after).push(`${JSON.stringify(key)}:${JSON.stringify(tags[key])}`);
  return { before: before.join(','), after: after.join(',') };
}

/**
 * logsQuery serves POST /api/v1/logs/query. The shape of q picks the path: a selector with a
 * pipeline streams rows (raw), anything that reduces to series streams points like a metrics
 * query (aggregate). Raw queries walk time slices in output order, several at once on the
 * pool, and stop dispatching and abort what is running once `limit` rows are out. A metric
 * query whose s equals e is an instant query, evaluated as Loki's /query evaluates it.
 */
export async function logsQuery(ctx: RequestContext, deps: LogsQueryDeps): Promise<void> {
  const body = requireObject(parseJsonBody(ctx.body!));
  const q = requireQueryText(body);
  const window = resolveWindow(body, { defaultMaxDataPoints: deps.defaultMaxDataPoints, maxPointsPerSeries: deps.maxPointsPerSeries });
  const expr = parseLogQL(q);
  // A window of one instant is an instant query, where approx_topk is allowed.
  checkLogQL(expr, q, { rangeQuery: !window.instant });
  const raw = logqlQueryKind(expr) === 'log';
  if (raw) checkLimitShape(body.limit);
  const reverse = optionalBoolean(body.reverse, 'reverse');
  const fields = optionalFields(body.fields);
  const format = resultFormat(body);
  if (body.summary !== undefined && body.summary !== false) throw new ApiError('BAD_REQUEST', 'summary applies to metrics queries only');
  requireEventStream(ctx.headers.accept);
  const org = callerOrg(ctx.principal, QUERY_NEEDS_ORG);
  const limits = deps.queryLimitsFor(org);
  const limit = raw ? rowLimit(body.limit, limits) : 0;
  const release = await waitForSlot(ctx, deps.gate, org, limits);
  let rawFailed = 0;
  const { planDeps, source, stream } = holdingSlot(release, () => {
    const planDeps = { ...orgPlanDeps(deps, limits, 'logs'), valueText: writesValueText(format) };
    const source = raw ? undefined : logSeriesSource(planDeps, org, q, expr, window);
    const stream = new QueryStream(ctx, {
      endpoint: raw ? 'logs_raw' : 'logs_aggregate',
      ...orgStreamOptions(deps, limits, release),
      failedSegments: () => source?.failedSegments() ?? rawFailed,
    });
    return { planDeps, source, stream };
  });
  if (source) {
    await streamSeriesSlices(stream, source, window, false, format);
    return;
  }
  const renderer = format === 'events' ? new RawRowRenderer() : new CompactRowEncoder();
  try {
    const outcome = await runRawLogs(planDeps, org, q, expr, window, { limit, reverse, fields }, stream.signal, async (rows, bytes) => {
      await stream.emit(renderer instanceof CompactRowEncoder ? renderer.frames(rows) : renderer.events(rows), bytes);
    });
    rawFailed = outcome.failedSegments;
    stream.evaluated();
    stream.stop();
    stream.finish();
  } catch (err) {
    stream.fail(err);
  }
}
