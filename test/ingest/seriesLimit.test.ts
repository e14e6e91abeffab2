import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody, Storage } from '../../engine/index.js';
import { ExportMetricsServiceResponse, ExportMetricsServiceRequest, pbDecode, pbEncode } from '../engine/ingest/protoTypes.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = Date.now();
const one = (name: string, v = 1) => ({ labels: { __name__: name }, timestampsMs: Float64Array.of(NOW), values: Float64Array.of(v) });

describe('series limit per org (storage)', () => {
  it('refuses only series that would be new beyond the limit, per org', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-limit-'));
    const st = await Storage.open({ dir });
    const limits = { maxActiveSeries: 2 };
    try {
      expect(await st.appendMetrics('a', [one('m1'), one('m2'), one('m3')], [], limits)).toEqual({ refusedSeries: 1, refusedSamples: 1, refusedHistograms: 0, firstRefused: { __name__: 'm3' } });
      expect(await st.appendMetrics('a', [one('m1', 5), one('m4')], [], limits)).toEqual({ refusedSeries: 1, refusedSamples: 1, refusedHistograms: 0, firstRefused: { __name__: 'm4' } });
      expect(await st.appendMetrics('b', [one('m1'), one('m2')], [], limits)).toEqual({ refusedSeries: 0, refusedSamples: 0, refusedHistograms: 0 });
      const names = st.metrics('a').labelValues('__name__', [], -Infinity, Infinity);
      expect(names).toEqual(['m1', 'm2']);
      expect(st.metrics('a').select([{ name: '__name__', type: '=', value: 'm1' }], -Infinity, Infinity)[0].values.at(-1)).toBe(5);
    } finally {
      await st.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('series limit per org (endpoints)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_MAX_SERIES_PER_ORG: '3' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers remote write with 400 naming the limit, after storing what fits', async () => {
    const body = encodeRemoteWriteBody({
      timeseries: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ labels: [{ name: '__name__', value: `rw_${n}` }], samples: [{ value: 1, timestamp: NOW }] })),
    });
    const res = await fetch(`${srv.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^2 of 5 samples rejected \(series_limit \(SVC_MAX_SERIES_PER_ORG=3\): 2; 2 new series refused, the first \{__name__="rw_d"\}: the org is at its limit of 3 active series/);
    expect(srv.service.storage.metrics(srv.orgId).labelValues('__name__', [], -Infinity, Infinity)).toEqual(['rw_a', 'rw_b', 'rw_c']);
  });

  it('reports refused OTLP points as partial success', async () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'otlp.gauge', gauge: { dataPoints: [{ timeUnixNano: String(BigInt(NOW) * 1_000_000n), asDouble: 1 }] } }] }] }],
    });
    const res = await fetch(`${srv.url}/v1/metrics`, { method: 'POST', body, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(200);
    const answer = pbDecode(ExportMetricsServiceResponse, new Uint8Array(await res.arrayBuffer())) as { partialSuccess?: { rejectedDataPoints: string; errorMessage: string } };
    expect(Number(answer.partialSuccess?.rejectedDataPoints)).toBeGreaterThan(0);
    expect(answer.partialSuccess?.errorMessage).toMatch(/^series_limit \(SVC_MAX_SERIES_PER_ORG=3\): \d+; 1 new series refused, the first \{__name__="otlp_gauge"\}: the org is at its limit of 3 active series/);
  });
});
