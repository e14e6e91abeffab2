import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000;

async function write(srv: TestServer, name: string, fromMs: number): Promise<void> {
  const samples = Array.from({ length: 10 }, (_, i) => ({ value: i, timestamp: fromMs + i * 60_000 }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: name }], samples }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
  const lines = Array.from({ length: 10 }, (_, i) => [String(BigInt(fromMs + i * 60_000) * 1_000_000n), `${name} line ${i}`]);
  const push = await fetch(`${srv.url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'svc' }, values: lines }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
  });
  expect(push.status).toBe(204);
}

describe('a segment that cannot be read', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await write(srv, 'old_metric', NOW - 40 * 60_000);
    await srv.service.storage.cut();
    await write(srv, 'new_metric', NOW - 20 * 60_000);
    await srv.service.storage.cut();
    const oldest = srv.service.storage.segments().filter((s) => s.signal === 'metrics').sort((a, b) => a.minMs - b.minMs)[0];
    const logs = srv.service.storage.segments().filter((s) => s.signal === 'logs').sort((a, b) => a.minMs - b.minMs)[0];
    for (const seg of [oldest, logs]) {
      const file = path.join(srv.dataDir, 'segments', seg.file);
      const bytes = await fs.readFile(file);
      bytes[bytes.length - 10] ^= 0xff;
      await fs.writeFile(file, bytes);
    }
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('yields the readable data and ends the metrics stream with done status error', async () => {
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: '{__name__=~".+_metric"}', s: String(NOW - 45 * 60_000), e: String(NOW), step: 60 }));
    expect(res.status).toBe(200);
    const names = new Set(res.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).__name__));
    expect([...names]).toEqual(['new_metric']);
    expect(res.events.at(-1)).toMatchObject({ type: 'done', data: { status: 'error', code: 'SERVICE_UNAVAILABLE' } });
    expect(srv.logs.text()).toContain('query answered without unreadable segments');
  });

  it('does the same for raw logs', async () => {
    const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: '{service_name="svc"}', s: String(NOW - 45 * 60_000), e: String(NOW), limit: 100 }));
    const lines = res.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message);
    expect(lines.every((l) => l.startsWith('new_metric'))).toBe(true);
    expect(lines).toHaveLength(10);
    expect(res.events.at(-1)).toMatchObject({ type: 'done', data: { status: 'error' } });
  });
});
