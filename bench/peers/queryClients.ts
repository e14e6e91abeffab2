import type { RunningSystem, SystemName } from './peers.js';

/**
 * The clients the query suites time: Sluice's SSE API read to its `done` event (in the spec's
 * events, and in the compact format: series once, then points as columns), and the
 * Prometheus HTTP API (the peers', and Sluice's own under /prometheus) read to the end of the body. Timing covers the request and the
 * whole body; parsing happens afterwards (only when answers are compared), so client-side
 * JSON work is not counted against any system.
 */
export interface QueryRequest {
  expr: string;
  kind: 'range' | 'instant';
  startMs: number;
  endMs: number;
  stepS: number;
}

export interface TimedAnswer {
  ms: number;
  bytes: number;
  body: Uint8Array;
}

/** SeriesPoints maps a series' canonical labels to its points (timestamp ms → value). */
export type SeriesPoints = Map<string, Map<number, number>>;

export class QueryFailed extends Error {
  /** retryAfterS is the refusal's Retry-After in seconds (429 and 503 answers that carry one). */
  retryAfterS?: number;
}

/** retryAfterSeconds reads a Retry-After given in seconds; a date or nothing gives undefined. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** timedQuery asks one query and reads the answer to its end; `pauseMs` makes it a slow reader. */
export async function timedQuery(sys: RunningSystem, req: QueryRequest, signal?: AbortSignal, pauseMs = 0): Promise<TimedAnswer> {
  const started = performance.now();
  const sse = sys.name === 'sluice' || sys.name === 'sluice-cache' || sys.name === 'sluice-baseline' || sys.name === 'sluice-compact';
  // Every wait races the signal: an aborted fetch does not always settle a pending body read
  // (seen with compressed bodies), which would hang the viewer that asked.
  const aborted = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {});
  const res = await Promise.race([sse ? sluiceRequest(sys, req, signal) : prometheusApiRequest(sys, req, signal), aborted]);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      chunks.push(value);
      bytes += value.length;
      if (pauseMs > 0) await Promise.race([new Promise((r) => setTimeout(r, pauseMs)), aborted]);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  }
  const ms = performance.now() - started;
  const body = Buffer.concat(chunks);
  if (res.status !== 200) {
    const failed = new QueryFailed(`${sys.name} answered ${res.status} to ${req.expr}: ${body.toString().slice(0, 500)}`);
    failed.retryAfterS = retryAfterSeconds(res.headers.get('retry-after'));
    throw failed;
  }
  if (sse && !/"type":"done","data":\{"status":"ok"/.test(body.subarray(Math.max(0, body.length - 200)).toString())) {
    throw new QueryFailed(`sluice ended ${req.expr} without done ok: ${body.subarray(Math.max(0, body.length - 300)).toString()}`);
  }
  return { ms, bytes, body };
}

/**
 * BROWSER_ENCODINGS is what Chromium asks a server for; the compact client stands for the web
 * UI, which runs in a browser, where fetch's own default (`gzip, deflate`) stands for other clients.
 */
const BROWSER_ENCODINGS = { 'accept-encoding': 'gzip, deflate, br, zstd' };

function sluiceRequest(sys: RunningSystem, req: QueryRequest, signal?: AbortSignal): Promise<Response> {
  const body: Record<string, unknown> =
    req.kind === 'range'
      ? { q: req.expr, s: String(req.startMs), e: String(req.endMs), step: req.stepS }
      : { q: req.expr, s: String(req.endMs), e: String(req.endMs) };
  if (sys.name === 'sluice-compact') {
    // As the web UI asks: compact columns of doubles in base64.
    body.format = 'compact';
    body.columns = 'float64';
  }
  return fetch(`${sys.url}/api/v1/metrics/query`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'x-svc-api-key': sys.key, 'content-type': 'application/json', accept: 'text/event-stream', ...(sys.name === 'sluice-compact' ? BROWSER_ENCODINGS : {}) },
    signal,
  });
}

function prometheusApiRequest(sys: RunningSystem, req: QueryRequest, signal?: AbortSignal): Promise<Response> {
  const params = new URLSearchParams({ query: req.expr });
  if (req.kind === 'range') {
    params.set('start', String(req.startMs / 1000));
    params.set('end', String(req.endMs / 1000));
    params.set('step', String(req.stepS));
  } else {
    params.set('time', String(req.endMs / 1000));
  }
  if (sys.name === 'victoria') params.set('nocache', '1');
  const path = req.kind === 'range' ? '/api/v1/query_range' : '/api/v1/query';
  const headers: Record<string, string> = sys.name === 'sluice-prom' ? { 'x-svc-api-key': sys.key } : {};
  return fetch(`${sys.url}${path}?${params.toString()}`, { signal, headers });
}

export function labelsKey(labels: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, String(labels[k])]),
  );
}

/**
 * parseAnswer turns either wire format into series points, dropping NaN and infinities as Sluice does.
 * SSE answers are read event by event straight from the bytes: a whole-day answer over many
 * series is gigabytes of events, past the longest string V8 can make.
 */
export function parseAnswer(system: SystemName, body: Uint8Array): SeriesPoints {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (system === 'sluice' || system === 'sluice-cache' || system === 'sluice-baseline') return parseSluiceSse(bytes);
  if (system === 'sluice-compact') return parseSluiceCompact(bytes);
  return parsePrometheusJson(bytes.toString());
}

/** sseData yields the `data:` payload of each event of an SSE body, one event decoded at a time. */
export function* sseData(bytes: Buffer): Generator<string> {
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf('\n\n', start);
    if (end < 0) end = bytes.length;
    const block = bytes.toString('utf8', start, end);
    start = end + 2;
    const line = block.split('\n').find((l) => l.startsWith('data: '));
    if (line !== undefined) yield line.slice(6);
  }
}

function add(points: SeriesPoints, key: string, ts: number, value: number): void {
  if (!Number.isFinite(value)) return;
  let series = points.get(key);
  if (series === undefined) {
    series = new Map();
    points.set(key, series);
  }
  series.set(ts, value);
}

function parseSluiceSse(bytes: Buffer): SeriesPoints {
  const points: SeriesPoints = new Map();
  for (const data of sseData(bytes)) {
    const event = JSON.parse(data) as { type: string; data: { tags?: Record<string, unknown>; value?: number; timestamp?: number } };
    if (event.type !== 'result') continue;
    add(points, labelsKey(event.data.tags ?? {}), event.data.timestamp!, event.data.value!);
  }
  return points;
}

/**
 * parseSluiceCompact reads the compact format: `series` events name an id's tags, `points`
 * events carry its columns, as JSON numbers or (`columns: "float64"`) base64 doubles, whose
 * timestamps may come as `start` and `step`.
 */
function parseSluiceCompact(bytes: Buffer): SeriesPoints {
  const points: SeriesPoints = new Map();
  const keys = new Map<number, string>();
  for (const data of sseData(bytes)) {
    const event = JSON.parse(data) as { type: string; data: { id?: number; tags?: Record<string, unknown>; timestamps?: number[] | string; start?: number; step?: number; values?: number[] | string } };
    if (event.type === 'series') keys.set(event.data.id!, labelsKey(event.data.tags ?? {}));
    else if (event.type === 'points') {
      const key = keys.get(event.data.id!);
      if (key === undefined) throw new QueryFailed(`compact points for series ${event.data.id} before its series event`);
      const vs = numberColumn(event.data.values!);
      // float64 columns over a regular grid give `start` and `step` instead of timestamps.
      const { start, step } = event.data;
      const ts = event.data.timestamps !== undefined ? numberColumn(event.data.timestamps) : Array.from({ length: vs.length }, (_, i) => start! + i * step!);
      for (let i = 0; i < ts.length; i++) add(points, key, ts[i], vs[i]);
    }
  }
  return points;
}

/** numberColumn reads a compact column: JSON numbers, or base64 of little-endian doubles. */
function numberColumn(column: number[] | string): ArrayLike<number> {
  if (typeof column !== 'string') return column;
  const bytes = Buffer.from(column, 'base64');
  // A fresh copy: the decoded Buffer may sit at an offset of a pooled buffer that is not a multiple of 8.
  return new Float64Array(new Uint8Array(bytes).buffer);
}

interface PrometheusAnswer {
  status: string;
  data: { resultType: string; result: Array<{ metric: Record<string, string>; values?: Array<[number, string]>; value?: [number, string] }> };
}

function parsePrometheusJson(text: string): SeriesPoints {
  const answer = JSON.parse(text) as PrometheusAnswer;
  const points: SeriesPoints = new Map();
  for (const series of answer.data.result) {
    const key = labelsKey(series.metric);
    for (const [t, v] of series.values ?? (series.value ? [series.value] : [])) add(points, key, Math.round(t * 1000), Number(v));
  }
  return points;
}
