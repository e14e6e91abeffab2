/**
 * Running LogQL conformance scripts through the Loki HTTP API instead of the engine: each data
 * state of a script (the streams loaded since the last `clear`) is pushed into an org of its own
 * through `POST /loki/api/v1/push`, and each eval is asked of `/loki/api/v1/query` (instant) or
 * `/loki/api/v1/query_range` (range) with the eval's time, range and step. The JSON answer is
 * read back into the engine's result shapes and judged by the engine runner's own comparison,
 * so a difference between the two runs can only come from the wire: push decoding, parameter
 * handling or rendering.
 */
import { encodeLokiPushBody, lokiPushJson, type PushRequestInput } from '../../engine/ingest/index.js';
import { compareResult, EPOCH_MS, type EvalCommand, type EvalOutcome, type LoadEntry } from '../../engine/conformance/logql/index.js';
import type { InstantResult, RangeResult } from '../../engine/logql/eval/types.js';
import { compileRegex } from '../../engine/regex/index.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';

const EPOCH_NS = BigInt(EPOCH_MS) * 1_000_000n;

/** PushFormat is how a data state is sent: Loki's snappy protobuf (what Promtail and Alloy send) or its JSON. */
export type PushFormat = 'protobuf' | 'json';

/** OrgAccess is where one data state lives: an org and a key of it. */
export interface OrgAccess {
  url: string;
  key: string;
}

/** pushRequestOf turns a script's load entries into one Loki push request. */
export function pushRequestOf(entries: readonly LoadEntry[]): PushRequestInput {
  return {
    streams: entries.map((e) => ({
      labels: e.stream,
      entries: e.lines.map(({ offsetNs, line }) => ({
        timestampNs: EPOCH_NS + offsetNs,
        line,
        ...(e.metadata.length > 0 ? { structuredMetadata: Object.fromEntries(e.metadata) } : {}),
      })),
    })),
  };
}

/** pushState sends a data state to the org of `access`; the answer is returned whatever it is. */
export function pushState(access: OrgAccess, entries: readonly LoadEntry[], format: PushFormat): Promise<Response> {
  const req = pushRequestOf(entries);
  const body = format === 'json' ? lokiPushJson(req) : encodeLokiPushBody(req);
  const contentType = format === 'json' ? 'application/json' : 'application/x-protobuf';
  return fetch(`${access.url}/loki/api/v1/push`, { method: 'POST', body, headers: { 'x-svc-api-key': access.key, 'content-type': contentType } });
}

/**
 * Spelling is how times and steps are written: `epoch` as nanosecond epochs and float seconds
 * (Grafana's way), `text` as RFC 3339 times and Go durations (logcli's and scripts' way).
 */
export type Spelling = 'epoch' | 'text';

/** timeText writes an offset from the script epoch as a time Loki's API takes. */
function timeText(offsetNs: bigint, spelling: Spelling): string {
  const ns = EPOCH_NS + offsetNs;
  if (spelling === 'epoch') return ns.toString();
  const seconds = ns / 1_000_000_000n;
  const nanos = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${nanos}Z`;
}

/** stepText writes a step as float seconds or as a Go duration. */
function stepText(stepNs: bigint, spelling: Spelling): string {
  if (spelling === 'epoch') return String(Number(stepNs) / 1e9);
  return stepNs % 1_000_000_000n === 0n ? `${stepNs / 1_000_000_000n}s` : `${Number(stepNs) / 1e6}ms`;
}

/**
 * queryParams are the parameters a Loki client sends for an eval: `time` for an instant query;
 * `start`, `end` and `step` for a range query.
 */
export function queryParams(cmd: EvalCommand, spelling: Spelling): { path: string; params: URLSearchParams } {
  if (cmd.instant) return { path: '/loki/api/v1/query', params: new URLSearchParams({ query: cmd.query, time: timeText(cmd.startNs, spelling) }) };
  return {
    path: '/loki/api/v1/query_range',
    params: new URLSearchParams({
      query: cmd.query,
      start: timeText(cmd.startNs, spelling),
      end: timeText(cmd.endNs, spelling),
      step: stepText(cmd.stepNs, spelling),
    }),
  };
}

/** sampleNumber reads a sample value as Loki writes it, NaN and infinities spelled out. */
function sampleNumber(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const v = Number(text);
  if (text.trim() === '' || Number.isNaN(v)) throw new Error(`sample value ${JSON.stringify(text)} is not a number`);
  return v;
}

/** secondsToMs reads a sample time (float Unix seconds) as whole milliseconds. */
function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

function columns(labels: Record<string, string>, points: ReadonlyArray<[number, string]>): SeriesColumns {
  return {
    labels,
    timestampsMs: Float64Array.from(points.map((p) => secondsToMs(p[0]))),
    values: Float64Array.from(points.map((p) => sampleNumber(p[1]))),
  };
}

interface LokiData {
  resultType: string;
  result: unknown;
}

/** resultOf reads a Loki query answer's data into the engine's result shapes; a string names a shape that cannot be one. */
export function resultOf(data: LokiData): InstantResult | RangeResult | string {
  switch (data.resultType) {
    case 'scalar': {
      const [t, v] = data.result as [number, string];
      return { resultType: 'scalar', timestampMs: secondsToMs(t), value: sampleNumber(v) };
    }
    case 'vector': {
      const samples = data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
      return { resultType: 'vector', series: samples.map((s) => columns(s.metric, [s.value])) };
    }
    case 'matrix': {
      const series = data.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
      return { resultType: 'matrix', series: series.map((s) => columns(s.metric, s.values)) };
    }
    default:
      return `answered resultType ${JSON.stringify(data.resultType)}, not a metric result`;
  }
}

/** failureProblem says why an error answer does not meet an `expect fail`, or undefined when it does. */
function failureProblem(cmd: EvalCommand, message: string): string | undefined {
  const fail = cmd.expect.fail!;
  if (fail.kind === 'msg' && !message.includes(fail.text)) return `error ${JSON.stringify(message)} does not contain ${JSON.stringify(fail.text)}`;
  if (fail.kind === 'regex' && !compileRegex(fail.text).test(message)) return `error ${JSON.stringify(message)} does not match /${fail.text}/`;
  return undefined;
}

/**
 * evalOverHttp asks one eval of the API and judges the answer as the engine runner judges an
 * evaluation. `post` sends the parameters as a form-encoded POST (Grafana's way) instead of a
 * GET, and spells times and steps as text rather than epochs, so both ways of each are used.
 */
export async function evalOverHttp(access: OrgAccess, file: string, cmd: EvalCommand, post: boolean): Promise<EvalOutcome> {
  const base = { file, line: cmd.line, query: cmd.query };
  const { path, params } = queryParams(cmd, post ? 'text' : 'epoch');
  const headers = { 'x-svc-api-key': access.key };
  const res = post
    ? await fetch(`${access.url}${path}`, { method: 'POST', body: params, headers })
    : await fetch(`${access.url}${path}?${params}`, { headers });
  const text = await res.text();
  let body: { status?: string; data?: LokiData; message?: string; error?: string };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { ...base, outcome: 'failed', detail: `HTTP ${res.status} answered a body that is not JSON: ${text.slice(0, 200)}` };
  }
  if (res.status !== 200) {
    const message = body.message ?? body.error ?? text;
    if (res.status >= 500) return { ...base, outcome: 'failed', detail: `HTTP ${res.status}: ${message}` };
    if (cmd.expect.fail === undefined) return { ...base, outcome: 'failed', detail: `unexpected error (HTTP ${res.status}): ${message}` };
    const why = failureProblem(cmd, message);
    return why === undefined ? { ...base, outcome: 'passed', detail: '' } : { ...base, outcome: 'failed', detail: why };
  }
  if (cmd.expect.fail !== undefined) return { ...base, outcome: 'failed', detail: 'expected the query to fail, it succeeded' };
  if (body.status !== 'success' || body.data === undefined) return { ...base, outcome: 'failed', detail: `HTTP 200 without a success body: ${text.slice(0, 200)}` };
  const result = resultOf(body.data);
  if (typeof result === 'string') return { ...base, outcome: 'failed', detail: result };
  const why = compareResult(cmd, result);
  return why === undefined ? { ...base, outcome: 'passed', detail: '' } : { ...base, outcome: 'failed', detail: why };
}
