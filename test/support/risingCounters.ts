import { expect } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import type { TestServer } from './server.js';

/**
 * writeRisingCounters remote-writes an hour of `requests_total{instance="host-<i>"}` for
 * `series` instances, a sample every 15 s up to `endMs`, each counter rising by i + 1 a scrape:
 * enough points that a rate over them makes an answer of real size.
 */
export async function writeRisingCounters(srv: TestServer, endMs: number, series: number): Promise<void> {
  const timeseries = Array.from({ length: series }, (_, i) => ({
    labels: [
      { name: '__name__', value: 'requests_total' },
      { name: 'instance', value: `host-${i}` },
    ],
    samples: Array.from({ length: 240 }, (_, k) => ({ value: k * (i + 1), timestamp: endMs - (240 - k) * 15_000 })),
  }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}
