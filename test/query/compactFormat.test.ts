import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { dataLines, expandCompact, numberColumn, splitDefault, timesOf, type ExpandedStream } from '../support/compactSse.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query } from '../support/sse.js';

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 3_600_000;
const CUT_MS = START_MS + 40 * 60_000;
const NS = 1_000_000n;

/** Label values that stress the tags' JSON: quotes, escapes, newlines, emoji and integer-looking text. */
const AWKWARD: Array<Record<string, string>> = [
  { job: 'quote"and\\backslash', path: '/a\nb\tc' },
  { job: 'snow ☃ and 😀', ctrl: '\u0001\u001f\u2028' },
  { job: 'ints', code: '500', id: '007', neg: '-42', zero: '-0', big: '12345678901234567890' },
  { job: 'plain' },
];

async function writeMetrics(srv: TestServer, keep: (t: number) => boolean): Promise<void> {
  const timeseries = [];
  for (let s = 0; s < 120; s++) {
    const extra = AWKWARD[s % AWKWARD.length];
    const labels = [{ name: '__name__', value: 'compact_total' }, { name: 'series', value: String(s) }, ...Object.entries(extra).map(([name, value]) => ({ name, value }))];
    const samples = [];
    let total = 0;
    for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) {
      total += (s % 7) + ((i * 13) % 5) / 3;
      if (keep(t)) samples.push({ value: total, timestamp: t });
    }
    timeseries.push({ labels, samples });
  }
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

async function writeLogs(srv: TestServer, keep: (t: number) => boolean): Promise<void> {
  const streams = AWKWARD.map((tags, k) => {
    const values: string[][] = [];
    for (let t = START_MS + k * 1000, i = 0; t <= END_MS; t += 20_000, i++) {
      if (!keep(t)) continue;
      const line = i % 3 === 0 ? `level=error msg="boom ${i}" note="q\\"uote ☃"` : i % 3 === 1 ? JSON.stringify({ level: 'info', msg: `ok ${i}\nsecond line` }) : `plain ${i} 😀`;
      values.push([String(BigInt(t) * NS + BigInt(k * 1111 + i)), line]);
    }
    return { stream: { service_name: 'compact', ...tags }, values };
  });
  const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
  expect(res.status).toBe(204);
}

interface Pair {
  plain: ExpandedStream;
  compact: ExpandedStream;
  /** float64 is the compact format with `columns: "float64"`. */
  float64: ExpandedStream;
  compactBytes: number;
  plainBytes: number;
}

/** both runs one query in the default and in the compact format (JSON and float64 columns), with the same Accept-Encoding. */
async function both(srv: TestServer, endpoint: 'metrics' | 'logs', body: Record<string, unknown>, encoding = 'identity'): Promise<Pair> {
  const read = async (extra: Record<string, unknown>): Promise<{ raw: string; bytes: number }> => {
    const res = await query(srv.url, `/api/v1/${endpoint}/query`, srv.key, { ...body, ...extra }, { 'accept-encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('content-encoding') ?? 'identity').toBe(encoding);
    const raw = await res.text();
    return { raw, bytes: Buffer.byteLength(raw) };
  };
  const plain = await read({});
  const compact = await read({ format: 'compact' });
  const float64 = await read({ format: 'compact', columns: 'float64' });
  return { plain: splitDefault(plain.raw), compact: expandCompact(compact.raw), float64: expandCompact(float64.raw), plainBytes: plain.bytes, compactBytes: compact.bytes };
}

const sorted = (lines: string[]): string[] => [...lines].sort();

describe('the compact result format', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2' });
    // The first 40 minutes go to segments; the rest stays in the head, so queries read both.
    await writeMetrics(srv, (t) => t < CUT_MS);
    await writeLogs(srv, (t) => t < CUT_MS);
    await srv.service.storage.cut();
    await writeMetrics(srv, (t) => t >= CUT_MS);
    await writeLogs(srv, (t) => t >= CUT_MS);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const window = { s: String(START_MS), e: String(END_MS) };

  it.each([
    ['raw series over head and segments', { q: 'compact_total', step: 15 }],
    ['rate over many series', { q: 'rate(compact_total[5m])', step: 30 }],
    ['an aggregation', { q: 'sum by (job) (rate(compact_total[5m]))', step: 60 }],
    ['+Inf and -Inf (dropped) next to finite values', { q: 'compact_total / (compact_total % 2 - 1)', step: 60 }],
    ['NaN (dropped)', { q: '(compact_total - compact_total) / (compact_total - compact_total)', step: 300 }],
    ['-0 and tiny and huge numbers', { q: '-(compact_total * 0) or compact_total * 1e300 or compact_total * 1e-300', step: 120 }],
    ['a scalar', { q: '1 / 3', step: 60 }],
    ['an empty result', { q: 'no_such_metric_anywhere', step: 60 }],
  ])('carries exactly the default points: %s', async (_name, q) => {
    const { plain, compact, float64, plainBytes, compactBytes } = await both(srv, 'metrics', { ...window, ...q });
    expect(sorted(compact.results)).toEqual(sorted(plain.results));
    expect(compact.others).toEqual(plain.others);
    // The doubles' own bytes print as the default events print them, -0 as 0 included.
    expect(sorted(float64.results)).toEqual(sorted(plain.results));
    expect(float64.others).toEqual(plain.others);
    expect(float64.eventTypes).toEqual(compact.eventTypes);
    expect(plain.others.at(-1)).toBe('{"type":"done","data":{"status":"ok"}}');
    expect(compact.eventTypes.result).toBeUndefined();
    if (plain.results.length > 100) {
      expect(compact.eventTypes.series).toBeGreaterThan(0);
      expect(compactBytes * 3).toBeLessThan(plainBytes);
    }
  });

  it('announces each series once per query and keeps its points in time order, whatever the slices', async () => {
    const res = await query(srv.url, '/api/v1/metrics/query', srv.key, { ...window, q: 'compact_total', step: 15, format: 'compact' }, { 'accept-encoding': 'identity' });
    const events = (await res.text())
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => JSON.parse(b.slice(6)) as { type: string; data: { id: number; timestamps: number[] } });
    const seen = new Map<number, number>();
    for (const e of events.filter((e) => e.type === 'points')) {
      for (const t of e.data.timestamps) {
        expect(t).toBeGreaterThan(seen.get(e.data.id) ?? -Infinity);
        seen.set(e.data.id, t);
      }
    }
    expect(seen.size).toBe(120);
    expect(events.filter((e) => e.type === 'series')).toHaveLength(120);
  });

  it('carries the same summaries on the summary path', async () => {
    const { plain, compact } = await both(srv, 'metrics', { ...window, q: 'rate(compact_total[5m])', summary: true });
    expect(plain.results.length).toBe(120);
    expect(compact.results).toEqual(plain.results);
    expect(compact.eventTypes).toEqual(plain.eventTypes);
    expect(compact.others).toEqual(plain.others);
  });

  it.each([
    ['all rows', { q: '{service_name="compact"}', limit: 5000 }],
    ['newest first with a limit', { q: '{service_name="compact"}', reverse: true, limit: 77 }],
    ['a line filter', { q: '{service_name="compact"} |= "boom"', limit: 5000 }],
    ['fields without the message', { q: '{service_name="compact"}', fields: ['job', 'code'], limit: 300 }],
    ['parsed labels', { q: '{service_name="compact"} | logfmt', limit: 400 }],
    ['no rows', { q: '{service_name="nobody"}', limit: 10 }],
  ])('carries exactly the default log rows, in order: %s', async (_name, q) => {
    const { plain, compact, float64 } = await both(srv, 'logs', { ...window, ...q });
    expect(compact.results).toEqual(plain.results);
    expect(compact.others).toEqual(plain.others);
    // Rows have no columns of doubles: float64 leaves them as they are.
    expect(float64.results).toEqual(plain.results);
    if ('limit' in q && plain.results.length > 0) expect(plain.results.length).toBeLessThanOrEqual(q.limit);
  });

  it('carries exactly the default points of a log aggregate', async () => {
    const { plain, compact, float64 } = await both(srv, 'logs', { ...window, q: 'sum by (job) (count_over_time({service_name="compact"}[5m]))', step: 60 });
    expect(plain.results.length).toBeGreaterThan(0);
    expect(sorted(compact.results)).toEqual(sorted(plain.results));
    expect(sorted(float64.results)).toEqual(sorted(plain.results));
    expect(compact.others).toEqual(plain.others);
  });

  it.each(['gzip', 'br'])('carries the same results compressed (%s)', async (encoding) => {
    const metrics = await both(srv, 'metrics', { ...window, q: 'rate(compact_total[5m])', step: 30 }, encoding);
    expect(metrics.plain.results.length).toBeGreaterThan(1000);
    expect(sorted(metrics.compact.results)).toEqual(sorted(metrics.plain.results));
    expect(sorted(metrics.float64.results)).toEqual(sorted(metrics.plain.results));
    const logs = await both(srv, 'logs', { ...window, q: '{service_name="compact"}', limit: 5000 }, encoding);
    expect(logs.compact.results).toEqual(logs.plain.results);
  });

  it('sends events the OpenAPI document describes', async () => {
    const doc = JSON.parse(readFileSync(path.resolve('schemas/openapi.json'), 'utf8')) as { components: Record<string, unknown> };
    const ajv = new Ajv2020({ strict: false });
    const validator = (name: string) => ajv.compile({ components: doc.components, $ref: `#/components/schemas/${name}` });
    const cases = [
      { endpoint: 'metrics', schema: 'MetricsQueryEvent', body: { q: 'compact_total / (compact_total % 2 - 1)', step: 60 } },
      { endpoint: 'logs', schema: 'LogsQueryEvent', body: { q: '{service_name="compact"}', fields: ['job'], limit: 500 } },
      { endpoint: 'logs', schema: 'LogsQueryEvent', body: { q: 'count_over_time({service_name="compact"}[5m])', step: 60 } },
    ];
    for (const c of cases) {
      const validate = validator(c.schema);
      for (const columns of ['json', 'float64']) {
        const res = await query(srv.url, `/api/v1/${c.endpoint}/query`, srv.key, { ...window, ...c.body, format: 'compact', columns });
        const events = dataLines(await res.text()).map((l) => JSON.parse(l) as { type: string });
        expect(events.length).toBeGreaterThan(2);
        for (const e of events) expect(validate(e), `${JSON.stringify(e).slice(0, 200)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
  });

  it('refuses float64 columns without the compact format, and unknown columns, with the JSON error body', async () => {
    for (const endpoint of ['metrics', 'logs']) {
      const q = endpoint === 'metrics' ? 'compact_total' : '{service_name="compact"}';
      for (const extra of [{ columns: 'float64' }, { format: 'events', columns: 'float64' }, { format: 'compact', columns: 'f32' }, { format: 'compact', columns: 64 }]) {
        const res = await query(srv.url, `/api/v1/${endpoint}/query`, srv.key, { ...window, q, ...extra });
        expect(res.status, JSON.stringify(extra)).toBe(400);
        expect(await res.json()).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringContaining('columns') });
      }
    }
  });

  it('writes a long series in float64 columns as several events of bounded size, in time order', async () => {
    // Every 15 s over the hour at a 1 s step: 3,601 points a series, more than one event holds.
    const res = await query(srv.url, '/api/v1/metrics/query', srv.key, { ...window, q: 'compact_total{series="3"}', step: 1, format: 'compact', columns: 'float64' }, { 'accept-encoding': 'identity' });
    const raw = await res.text();
    const points = dataLines(raw)
      .map((l) => JSON.parse(l) as { type: string; data: { id: number; timestamps?: string; start?: number; step?: number; values: string } })
      .filter((e) => e.type === 'points');
    expect(points.length).toBeGreaterThan(1);
    const ts = points.flatMap((e) => timesOf(e.data, numberColumn(e.data.values).length));
    expect(ts.length).toBe(3601);
    for (let i = 1; i < ts.length; i++) expect(ts[i]).toBe(ts[i - 1] + 1000);
    // Every step present: each event's times are a grid, not a column.
    for (const e of points) expect(e.data.timestamps).toBeUndefined();
    for (const e of points) expect(JSON.stringify(e).length).toBeLessThan(70 * 1024);
  });

  it('gives float64 times as a grid where every step has a point, and as a column where points are missing', async () => {
    // Infinities are dropped, so a series keeps only some of its steps; the rate keeps all.
    const read = async (q: string) => {
      const res = await query(srv.url, '/api/v1/metrics/query', srv.key, { ...window, q, step: 60, format: 'compact', columns: 'float64' }, { 'accept-encoding': 'identity' });
      return dataLines(await res.text())
        .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
        .filter((e) => e.type === 'points');
    };
    const gappy = await read('compact_total / (compact_total % 2 - 1)');
    expect(gappy.some((e) => typeof e.data.timestamps === 'string')).toBe(true);
    const full = await read('rate(compact_total[5m])');
    expect(full.length).toBeGreaterThan(0);
    for (const e of full) expect(e.data).toMatchObject({ start: expect.any(Number), step: 60_000 });
  });

  it('refuses an unknown format with the JSON error body', async () => {
    for (const endpoint of ['metrics', 'logs']) {
      const res = await query(srv.url, `/api/v1/${endpoint}/query`, srv.key, { ...window, q: endpoint === 'metrics' ? 'compact_total' : '{service_name="compact"}', format: 'arrow' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringContaining('format') });
    }
  });
});

describe('the compact format with a segment that cannot be read', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await writeMetrics(srv, (t) => t < CUT_MS);
    await writeLogs(srv, (t) => t < CUT_MS);
    await srv.service.storage.cut();
    await writeMetrics(srv, (t) => t >= CUT_MS);
    await writeLogs(srv, (t) => t >= CUT_MS);
    await srv.service.storage.cut();
    for (const signal of ['metrics', 'logs']) {
      const oldest = srv.service.storage.segments().filter((s) => s.signal === signal).sort((a, b) => a.minMs - b.minMs)[0];
      const file = path.join(srv.dataDir, 'segments', oldest.file);
      const bytes = await fs.readFile(file);
      bytes[bytes.length - 10] ^= 0xff;
      await fs.writeFile(file, bytes);
    }
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('delivers the same partial results and ends with the same done status error', async () => {
    const metrics = await both(srv, 'metrics', { s: String(START_MS), e: String(END_MS), q: 'compact_total', step: 60 });
    expect(metrics.plain.results.length).toBeGreaterThan(0);
    expect(sorted(metrics.compact.results)).toEqual(sorted(metrics.plain.results));
    expect(JSON.parse(metrics.compact.others.at(-1)!)).toMatchObject({ type: 'done', data: { status: 'error', code: 'SERVICE_UNAVAILABLE' } });
    expect(metrics.compact.others).toEqual(metrics.plain.others);
    expect(sorted(metrics.float64.results)).toEqual(sorted(metrics.plain.results));
    expect(metrics.float64.others).toEqual(metrics.plain.others);
    const logs = await both(srv, 'logs', { s: String(START_MS), e: String(END_MS), q: '{service_name="compact"}', limit: 5000 });
    expect(logs.plain.results.length).toBeGreaterThan(0);
    expect(logs.compact.results).toEqual(logs.plain.results);
    expect(JSON.parse(logs.compact.others.at(-1)!)).toMatchObject({ type: 'done', data: { status: 'error' } });
  });

  it('ends the summary path with the same error event', async () => {
    const { plain, compact } = await both(srv, 'metrics', { s: String(START_MS), e: String(END_MS), q: 'compact_total', summary: true });
    expect(JSON.parse(plain.others.at(-1)!)).toMatchObject({ type: 'error' });
    expect(compact.results).toEqual(plain.results);
    expect(compact.others).toEqual(plain.others);
  });
});
