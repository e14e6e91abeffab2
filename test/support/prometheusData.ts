import { expect } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startPrometheus, type PeerSeries, type PrometheusPeer } from './prometheusPeer.js';
import { startTestServer, type TestServer } from './server.js';

/** The data set the Prometheus API compatibility tests load into Sluice and into Prometheus alike. */

const STEP_MS = 15_000;
export const END_MS = Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000;
export const START_MS = END_MS - 2 * 3_600_000;
export const END_S = END_MS / 1000;
/**
 * SAMPLE_SHIFT_MS keeps samples off every window boundary the requests use. Prometheus 2.42
 * closes range and lookback windows at both ends; Sluice follows Prometheus 3, whose windows
 * are left-open, so a sample exactly on a boundary is the one place the two may differ.
 */
const SAMPLE_SHIFT_MS = 7_123;

/** demoSeries is two hours of counters, a classic histogram, a gauge and a sparse series. */
export function demoSeries(): PeerSeries[] {
  const out: PeerSeries[] = [];
  for (const job of ['api', 'web']) {
    for (const code of ['200', '500']) {
      for (const instance of ['a', 'b', 'c']) {
        const samples = [];
        let total = 0;
        for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) {
          total += (code === '200' ? 10 : 1) + ((i * 7 + instance.charCodeAt(0)) % 5);
          samples.push({ value: total, timestamp: t + SAMPLE_SHIFT_MS });
        }
        out.push({ labels: { __name__: 'http_requests_total', job, code, instance }, samples });
      }
    }
  }
  const perStep: Record<string, number> = { '0.1': 60, '0.5': 90, '1': 100, '+Inf': 100 };
  for (const [le, inc] of Object.entries(perStep)) {
    const samples = [];
    for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) samples.push({ value: inc * i + (i % 3), timestamp: t + SAMPLE_SHIFT_MS });
    out.push({ labels: { __name__: 'latency_seconds_bucket', job: 'api', le }, samples });
  }
  const gauge = [];
  for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) gauge.push({ value: 20 + Math.sin(i / 10) * 3.3, timestamp: t + SAMPLE_SHIFT_MS });
  out.push({ labels: { __name__: 'temperature', room: 'lab' }, samples: gauge });
  out.push({ labels: { __name__: 'temperature', room: 'hall' }, samples: gauge.filter((_, i) => i % 8 === 0).map((p) => ({ ...p, value: p.value - 1.25 })) });
  out.push({ labels: { __name__: 'deploys', team: 'core' }, samples: [{ value: 1, timestamp: END_MS - 40 * 60_000 + SAMPLE_SHIFT_MS }, { value: 2, timestamp: END_MS - 3 * 60_000 + SAMPLE_SHIFT_MS }] });
  return out;
}

/** startBothWithDemoData starts Sluice and Prometheus and loads the demo series into both. */
export async function startBothWithDemoData(): Promise<{ srv: TestServer; prom: PrometheusPeer }> {
  const series = demoSeries();
  const [srv, prom] = await Promise.all([startTestServer({ SVC_QUERY_WORKERS: '2' }), startPrometheus(series)]);
  const timeseries = series.map((s) => ({ labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })), samples: s.samples }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
  return { srv, prom };
}
