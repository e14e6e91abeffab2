import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_BYTES } from '../../src/http/body.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';

describe('request handling and error codes', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_MAX_BODY_BYTES: '4KiB' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const post = (path: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', ...headers },
      duplex: 'half',
    } as RequestInit);

  const expectError = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status, code });
    expect(typeof body.message).toBe('string');
    return body;
  };

  const stillServing = async () => {
    const res = await post('/api/v1/promql/validate', JSON.stringify({ q: 'up' }));
    expect(res.status).toBe(200);
  };

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE, by Content-Length and by streamed size', async () => {
    await expectError(await post('/api/v1/promql/validate', JSON.stringify({ q: 'x'.repeat(10_000) })), 413, 'PAYLOAD_TOO_LARGE');
    await stillServing();
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(1024).fill(32));
        controller.close();
      },
    });
    await expectError(await post('/api/v1/promql/validate', chunks), 413, 'PAYLOAD_TOO_LARGE');
    await stillServing();
  });

  it('answers 413 to a client still sending megabytes over the limit, and keeps serving', async () => {
    // The answer goes out once the headers say too much; the client must still receive it
    // (not a broken pipe) while the rest of its body is on the wire.
    const big = JSON.stringify({ q: 'x'.repeat(6_000_000) });
    for (let i = 0; i < 5; i++) await expectError(await post('/api/v1/promql/validate', big), 413, 'PAYLOAD_TOO_LARGE');
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 48; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(32));
        controller.close();
      },
    });
    await expectError(await post('/api/v1/promql/validate', streamed), 413, 'PAYLOAD_TOO_LARGE');
    await stillServing();
  });

  it('reads a refused body to its end, so the 413 arrives and the same connection serves the next request', async () => {
    const url = new URL(srv.url);
    const head = (length: number) =>
      `POST /api/v1/promql/validate HTTP/1.1\r\nHost: x\r\nx-svc-api-key: ${srv.key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const refused = JSON.stringify({ q: 'x'.repeat(200_000) });
    const accepted = JSON.stringify({ q: 'up' });
    // One connection: the oversized request, then a good one once the first answer is in.
    const answers = await new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
      let text = '';
      let secondSent = false;
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(head(refused.length) + refused));
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (!secondSent && text.includes('PAYLOAD_TOO_LARGE')) {
          secondSent = true;
          socket.write(head(accepted.length) + accepted);
        }
        if (secondSent && /HTTP\/1\.1 200[\s\S]*"valid"/.test(text)) {
          socket.destroy();
          resolve({ text, closed: false });
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ text, closed: true }));
    });
    expect(answers.text).toMatch(/^HTTP\/1\.1 413/);
    expect(answers.text).toMatch(/HTTP\/1\.1 200/);
    expect(answers.closed).toBe(false);

    // Declared far past the limit and the drain window, the answer goes out at once and the connection closes.
    const closedAnswer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(head(4096 + DRAIN_BYTES + 1)));
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(closedAnswer).toMatch(/^HTTP\/1\.1 413/);
    expect(closedAnswer).toContain('PAYLOAD_TOO_LARGE');
    await stillServing();
  });

  it('answers a body that is not JSON with 400 INVALID_JSON', async () => {
    for (const bad of ['{"q": ', 'not json', '', '{"q": "up"} trailing']) {
      await expectError(await post('/api/v1/promql/validate', bad), 400, 'INVALID_JSON');
    }
    await stillServing();
  });

  it('answers an unsupported content type or a missing q with 400 BAD_REQUEST', async () => {
    await expectError(await post('/api/v1/promql/validate', 'q=up', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'BAD_REQUEST');
    await expectError(await post('/api/v1/promql/validate', '<q>up</q>', { 'content-type': 'text/xml' }), 400, 'BAD_REQUEST');
    await expectError(await post('/api/v1/promql/validate', '{}'), 400, 'BAD_REQUEST');
    await expectError(await post('/api/v1/promql/validate', '[1]'), 400, 'BAD_REQUEST');
    await expectError(await post('/api/v1/promql/validate', '{"q": 5}'), 400, 'BAD_REQUEST');
    expect((await post('/api/v1/promql/validate', '{"q":"up"}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    await stillServing();
  });

  it('answers GET on a POST-only route with 405 and Allow, and unknown paths with 404', async () => {
    const res = await fetch(`${srv.url}/api/v1/promql/validate`, { headers: { 'x-svc-api-key': srv.key } });
    await expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
    await expectError(await fetch(`${srv.url}/api/v1/nothing-here`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${srv.url}/api/v1/nothing-here`, { method: 'DELETE' }), 404, 'NOT_FOUND');
    await stillServing();
  });

  it('authenticates before reading a body', async () => {
    const res = await fetch(`${srv.url}/api/v1/promql/validate`, { method: 'POST', body: '{"q":"up"}', headers: { 'content-type': 'application/json' } });
    await expectError(res, 401, 'UNAUTHORIZED');
  });

  it('survives clients that hang up mid-body or send garbage', async () => {
    const url = new URL(srv.url);
    for (const payload of [
      `POST /api/v1/promql/validate HTTP/1.1\r\nHost: x\r\nx-svc-api-key: ${srv.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"q": "u`,
      'GARBAGE / HTTP/9.9\r\n\r\n',
      '\x00\x01\x02\x03\r\n\r\n',
    ]) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(url.port), url.hostname, () => {
          socket.write(payload);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 30);
        });
        socket.on('error', () => resolve());
      });
    }
    await stillServing();
  });

  it('validates PromQL and LogQL with positioned errors', async () => {
    const ok = await (await post('/api/v1/promql/validate', JSON.stringify({ q: 'sum by(job)(rate(http_requests_total{job="api"}[5m]))' }))).json();
    expect(ok).toEqual({ valid: true, kind: 'vector', canonical: 'sum by (job) (rate(http_requests_total{job="api"}[5m]))' });

    const syntax = (await (await post('/api/v1/promql/validate', JSON.stringify({ q: 'sum(rate(x[5m])' }))).json()) as {
      valid: boolean;
      error: { code: string; message: string; position: { line: number; col: number } };
    };
    expect(syntax.valid).toBe(false);
    expect(syntax.error.code).toBe('INVALID_EXPR');
    expect(syntax.error.message).toMatch(/^1:\d+: parse error: /);

    const typeErr = (await (await post('/api/v1/promql/validate', JSON.stringify({ q: 'rate(up)' }))).json()) as { error: { code: string } };
    expect(typeErr.error.code).toBe('COMPILE_ERROR');

    const logs = await (await post('/api/v1/logql/validate', JSON.stringify({ q: '{service_name="api"} |= "error" | json' }))).json();
    expect(logs).toMatchObject({ valid: true, kind: 'log' });
    const metric = await (await post('/api/v1/logql/validate', JSON.stringify({ q: 'sum by (level) (count_over_time({app="x"}[1m]))' }))).json();
    expect(metric).toMatchObject({ valid: true, kind: 'metric' });
    const bad = (await (await post('/api/v1/logql/validate', JSON.stringify({ q: '{app="x"} |= ' }))).json()) as { valid: boolean; error: { code: string } };
    expect(bad).toMatchObject({ valid: false, error: { code: 'INVALID_EXPR' } });
  });
});

describe('service lifecycle and metrics', () => {
  it('lets an in-flight request finish during shutdown', async () => {
    const srv = await startTestServer();
    const url = new URL(srv.url);
    const body = JSON.stringify({ q: 'up' });
    const socket = net.connect(Number(url.port), url.hostname);
    let response = '';
    socket.on('data', (d) => (response += d.toString()));
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /api/v1/promql/validate HTTP/1.1\r\nHost: x\r\nx-svc-api-key: ${srv.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
    );
    await waitFor(() => srv.service.server.requestsInFlight === 1);
    const stopped = srv.stop();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(body.slice(3));
    await stopped;
    await waitFor(() => response.includes('"valid":true'));
    expect(response).toMatch(/^HTTP\/1.1 200 OK/);
    socket.destroy();
  });

  it('counts requests by route and status, including client disconnects as 499', async () => {
    const srv = await startTestServer();
    try {
      await fetch(`${srv.url}/healthz`);
      await fetch(`${srv.url}/api/v1/ping`);
      const url = new URL(srv.url);
      const socket = net.connect(Number(url.port), url.hostname);
      await new Promise((r) => socket.once('connect', r));
      socket.write(`POST /api/v1/promql/validate HTTP/1.1\r\nHost: x\r\nx-svc-api-key: ${srv.key}\r\nContent-Length: 100\r\n\r\n{`);
      await waitFor(() => srv.service.server.requestsInFlight === 1);
      socket.destroy();
      await waitFor(() => srv.service.server.requestsInFlight === 0);
      const text = await (await fetch(`${srv.url}/metrics`)).text();
      expect(text).toContain('sluice_http_requests_total{route="/healthz",method="GET",status="200"} 1');
      expect(text).toContain('sluice_http_requests_total{route="/api/v1/ping",method="GET",status="401"} 1');
      expect(text).toContain('sluice_http_requests_total{route="/api/v1/promql/validate",method="POST",status="499"} 1');
      expect(text).toMatch(/sluice_http_request_duration_seconds_bucket\{le="0.005",route="\/healthz",method="GET"\} 1/);
      expect(text).toContain('sluice_open_streams 0');
      expect(srv.logs.text()).toContain('client closed request');
    } finally {
      await srv.stop();
    }
  });
});
