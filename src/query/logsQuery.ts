import {
  checkLogQL,
  logSelectionsFor,
  logqlQueryKind,
  parseLogQL,
  planSlices,
  shareLogs,
  gatherLogShare,
  logShardMergeFor,
  logShareSize,
  logTaskData,
  unpackRows,
  type QueryTask,
  EngineError,
  type Labels,
  type LogQLExpr,
  type RawRow,
} from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext } from '../http/router.js';
import type { SseEvent } from '../http/sse.js';
import { requireEventStream } from './accept.js';
import { MIN_STEPS_PER_SLICE, optionalBoolean, orgOf, type QueryDeps } from './metricsQuery.js';
import { requireObject, requireQueryText } from './request.js';
import { shardingPolicy, sliceTasks, streamSeriesSlices } from './seriesStream.js';
import { runOrderedQueue } from './orderedQueue.js';
import { QueryStream } from './stream.js';
import { resolveWindow, type QueryWindow } from './timeRange.js';

export interface LogsQueryDeps extends QueryDeps {
  defaultLogLimit: number;
  /** maxLogLimit caps what a client may ask for, so one request cannot ask for everything. */
  maxLogLimit: number;
  maxSeries: number;
  /** rawTaskRows bounds the rows one raw-log task returns; denser slices are answered in parts. */
  rawTaskRows: number;
}

const NS_PER_MS = 1_000_000n;

function optionalLimit(value: unknown, deps: LogsQueryDeps): number {
  if (value === undefined || value === null || value === 0) return deps.defaultLogLimit;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ApiError('BAD_REQUEST', 'limit must be a non-negative integer');
  if (value > deps.maxLogLimit) throw new ApiError('VALIDATION_FAILED', `limit may be at most ${deps.maxLogLimit}`);
  return value;
}

function optionalFields(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((f) => typeof f !== 'string')) throw new ApiError('BAD_REQUEST', 'fields must be an array of strings');
  return value as string[];
}

/**
 * RawRowRenderer renders log rows as result events. Rows of one tag set share its tags
 * object, so the sorted JSON of those tags is built once, split where the row's `message`
 * goes; a row then costs its line's JSON and a concatenation. `timestamp_ns` exceeds 2^53,
 * so the payload is written by hand to keep it an exact JSON integer; tags keep their string
 * values (a log line's `message` of "200" stays a string).
 */
class RawRowRenderer {
  private readonly parts = new WeakMap<Labels, { before: string; after: string }>();

  event(row: RawRow): SseEvent {
    let parts = this.parts.get(row.tags);
    if (!parts) this.parts.set(row.tags, (parts = splitAtMessage(row.tags)));
    const pieces: string[] = [];
    if (parts.before !== '') pieces.push(parts.before);
    if (row.line !== undefined) pieces.push(`"message":${JSON.stringify(row.line)}`);
    if (parts.after !== '') pieces.push(parts.after);
    const json = `{"timestamp":${row.timestampNs / NS_PER_MS},"timestamp_ns":${row.timestampNs},"tags":{${pieces.join(',')}}}`;
    return { type: 'result', data: undefined, json };
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
 * pool, and stop dispatching and abort what is running once `limit` rows are out.
 */
export async function logsQuery(ctx: RequestContext, deps: LogsQueryDeps): Promise<void> {
  const body = requireObject(parseJsonBody(ctx.body!));
  const q = requireQueryText(body);
  const window = resolveWindow(body, { defaultMaxDataPoints: deps.defaultMaxDataPoints, maxPointsPerSeries: deps.maxPointsPerSeries });
  const expr = parseLogQL(q);
  checkLogQL(expr, q, { rangeQuery: true });
  const raw = logqlQueryKind(expr) === 'log';
  const limit = raw ? optionalLimit(body.limit, deps) : 0;
  const reverse = optionalBoolean(body.reverse, 'reverse');
  const fields = optionalFields(body.fields);
  if (body.summary !== undefined && body.summary !== false) throw new ApiError('BAD_REQUEST', 'summary applies to metrics queries only');
  requireEventStream(ctx.headers.accept);
  const org = orgOf(ctx);
  const release = deps.gate.acquire(org, deps.pool.overloaded);
  const reader = deps.storage.logs(org);
  const stream = new QueryStream(ctx, {
    endpoint: raw ? 'logs_raw' : 'logs_aggregate',
    heartbeatMs: deps.heartbeatMs,
    timeoutMs: deps.timeoutMs,
    metrics: deps.metrics,
    release,
    failedSegments: () => reader.failedSegments.length,
  });
  if (!raw) {
    const slices = planSlices(window.startMs, window.endMs, window.stepMs, deps.pool.threads * 4, MIN_STEPS_PER_SLICE);
    const sharding = shardingPolicy(slices.length, deps.pool.threads, deps.shardMinSamples, () => logShardMergeFor(expr));
    await streamSeriesSlices(
      stream,
      deps.pool,
      slices,
      async (slice) => {
        const selections = logSelectionsFor(expr, slice.startMs, slice.endMs);
        await reader.prepare(selections);
        const share = gatherLogShare(reader, selections);
        return sliceTasks(
          sharding,
          logShareSize(share),
          (shard) => logTaskData(share, shard),
          (data, shard): QueryTask => ({
            kind: 'logql-range',
            query: q,
            startMs: slice.startMs,
            endMs: slice.endMs,
            stepMs: window.stepMs,
            maxSamples: deps.maxSamples,
            maxSeries: deps.maxSeries,
            data,
            shard,
          }),
        );
      },
      false,
    );
    return;
  }
  await streamRawLogs(stream, deps, expr, q, window, { limit, reverse, fields }, reader);
}

interface RawOptions {
  limit: number;
  reverse: boolean;
  fields: string[] | undefined;
}

/** rawSlices cuts [s, e] into time slices in output order (newest first when reversed). */
function rawSlices(window: QueryWindow, count: number, reverse: boolean): Array<{ startNs: bigint; endNs: bigint }> {
  const startNs = BigInt(window.startMs) * NS_PER_MS;
  const endNs = BigInt(window.endMs) * NS_PER_MS + (NS_PER_MS - 1n);
  const width = (endNs - startNs + 1n + BigInt(count) - 1n) / BigInt(count);
  const slices: Array<{ startNs: bigint; endNs: bigint }> = [];
  for (let from = startNs; from <= endNs; from += width) {
    const to = from + width - 1n < endNs ? from + width - 1n : endNs;
    slices.push({ startNs: from, endNs: to });
  }
  return reverse ? slices.reverse() : slices;
}

async function streamRawLogs(
  stream: QueryStream,
  deps: LogsQueryDeps,
  expr: LogQLExpr,
  q: string,
  window: QueryWindow,
  options: RawOptions,
  reader: ReturnType<LogsQueryDeps['storage']['logs']>,
): Promise<void> {
  const slices = rawSlices(window, deps.pool.threads * 4, options.reverse);
  const selection = logSelectionsFor(expr, window.startMs, window.endMs)[0];
  const direction = options.reverse ? 'backward' : 'forward';
  let emitted = 0;
  const renderer = new RawRowRenderer();
  try {
    await runOrderedQueue(
      slices,
      deps.pool.threads,
      async (slice, signal) => {
        const ranges = [{ matchers: selection.matchers, minNs: slice.startNs, maxNs: slice.endNs }];
        await reader.prepare(ranges);
        const data = shareLogs(reader, ranges);
        const result = await deps.pool.run(
          { kind: 'logql-raw', query: q, startNs: slice.startNs, endNs: slice.endNs, limit: options.limit - emitted, maxRows: deps.rawTaskRows, direction, fields: options.fields, data },
          signal,
        );
        if ('failed' in result) throw new EngineError(result.code, result.message);
        if (!('rows' in result)) throw new Error('worker answered a raw task with series');
        return result;
      },
      async (slice, result) => {
        const rows = unpackRows(result.rows);
        const take = Math.min(rows.length, options.limit - emitted);
        const events: SseEvent[] = new Array(take);
        for (let j = 0; j < take; j++) events[j] = renderer.event(rows[j]);
        emitted += take;
        await stream.emit(events);
        const more = emitted < options.limit;
        // A slice answered in parts continues right after the part just streamed.
        const resume = result.resumeNs;
        if (!more || resume === undefined) return { more };
        return { more, next: options.reverse ? { startNs: slice.startNs, endNs: resume } : { startNs: resume, endNs: slice.endNs } };
      },
      stream.signal,
    );
    stream.stop();
    stream.finish();
  } catch (err) {
    stream.fail(err);
  }
}
