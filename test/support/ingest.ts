import type { TestServer } from './server.js';
import { query, readSse } from './sse.js';
import { metricValue } from './metrics.js';

/** push posts an ingest body with the server's key. */
export function push(srv: TestServer, path: string, body: Uint8Array | string, contentType: string): Promise<Response> {
  return fetch(`${srv.url}${path}`, { method: 'POST', body, headers: { 'x-svc-api-key': srv.key, 'content-type': contentType } });
}

/**
 * storedSamples asks the metrics query API how many samples of `metric` lie in the ten
 * minutes before `atMs`, through the same path a dashboard takes.
 */
export async function storedSamples(srv: TestServer, metric: string, atMs: number): Promise<number> {
  const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: `sum(count_over_time(${metric}[10m]))`, s: String(atMs), e: String(atMs) }));
  const results = res.events.filter((e) => e.type === 'result');
  return results.length === 0 ? 0 : (results[0].data.value as number);
}

/** storedLines asks the logs query API for the messages of `selector` in [startMs, endMs], oldest first. */
export async function storedLines(srv: TestServer, selector: string, startMs: number, endMs: number): Promise<string[]> {
  const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: selector, s: String(startMs), e: String(endMs), limit: 1000 }));
  return res.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message);
}

/** rejectedCount reads sluice_ingest_rejected_records_total for one signal, reason and org (the server's own by default). */
export function rejectedCount(srv: TestServer, signal: 'logs' | 'metrics', reason: string, org: string = srv.orgId): Promise<number> {
  return metricValue(srv.url, new RegExp(`sluice_ingest_rejected_records_total\\{signal="${signal}",reason="${reason}",org="${org}"\\} (\\d+)`));
}
