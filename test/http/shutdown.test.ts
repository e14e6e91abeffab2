import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestServer, waitFor } from '../support/server.js';

describe('shutdown', () => {
  it('ends a stream still open at the shutdown deadline with done status error', async () => {
    const srv = await startTestServer({ SVC_SHUTDOWN_TIMEOUT_MS: '300' });
    try {
      // Enough rows that a client that stops reading leaves the stream waiting on its socket.
      const line = 'x'.repeat(4000);
      const start = Date.now() - 60_000;
      for (let batch = 0; batch < 2; batch++) {
        const values = Array.from({ length: 3000 }, (_, i) => [String((start + batch * 3000 + i) * 1_000_000), `${batch}-${i} ${line}`]);
        const res = await fetch(`${srv.url}/loki/api/v1/push`, {
          method: 'POST',
          headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
          body: JSON.stringify({ streams: [{ stream: { service_name: 'big' }, values }] }),
        });
        expect(res.status).toBe(204);
      }
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(`${srv.url}/api/v1/logs/query`, {
          method: 'POST',
          headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', accept: 'text/event-stream' },
        });
        req.on('response', resolve);
        req.on('error', reject);
        req.end(JSON.stringify({ q: '{service_name="big"}', s: 'now-1h', limit: 100_000 }));
      });
      expect(response.statusCode).toBe(200);
      response.pause();
      await waitFor(async () => (await (await fetch(`${srv.url}/metrics`)).text()).includes('sluice_open_streams 1'));
      await new Promise((r) => setTimeout(r, 200));

      const started = Date.now();
      await srv.service.stop();
      expect(Date.now() - started).toBeLessThan(5000);

      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d: string) => (text += d));
      response.resume();
      await new Promise((resolve) => response.on('end', resolve));
      const events = text
        .split('\n\n')
        .filter((e) => e.startsWith('data: '))
        .map((e) => JSON.parse(e.slice(6)) as { type: string; data: Record<string, unknown> });
      expect(events.filter((e) => e.type === 'result').length).toBeLessThan(6000);
      expect(events.at(-1)).toMatchObject({ type: 'done', data: { status: 'error', code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await srv.stop();
    }
  }, 60_000);
});
