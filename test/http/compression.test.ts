import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { MIN_OFF_LOOP_BYTES, negotiateEncoding, utf8Bytes } from '../../src/http/compression.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const HOUR_MS = 3_600_000;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** body is the response as decoded by its content-encoding. */
  body: string;
  /** wireBytes is what came over the socket. */
  wireBytes: number;
}

/** post sends a request with node:http, which (unlike fetch) leaves the body encoded, and decodes it itself. */
function post(url: string, path: string, key: string, body: unknown, acceptEncoding?: string, method = 'POST'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-svc-api-key': key, 'content-type': 'application/json', accept: 'text/event-stream' };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const req = http.request(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const decoded = encoding === 'gzip' ? zlib.gunzipSync(wire) : encoding === 'br' ? zlib.brotliDecompressSync(wire) : wire;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: decoded.toString('utf8'), wireBytes: wire.length });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(body) : undefined);
  });
}

describe('negotiateEncoding', () => {
  it('picks the accepted coding with the highest weight, br on a tie, none when refused', () => {
    expect(negotiateEncoding(undefined)).toBeUndefined();
    expect(negotiateEncoding('identity')).toBeUndefined();
    expect(negotiateEncoding('gzip, deflate, br')).toBe('br');
    expect(negotiateEncoding('gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*;q=0.1, br;q=0')).toBe('gzip');
    expect(negotiateEncoding('GZIP;Q=1')).toBe('gzip');
  });
});

describe('utf8Bytes', () => {
  it('gives the UTF-8 bytes of ASCII and of any other text, surrogate pairs and lone surrogates included', () => {
    const texts = ['', 'a', 'data: {"x":1}\n\n'.repeat(5000), 'é', 'quote " snow ☃', '𝄞', 'ascii then 𝄞', '\ud800 lone', 'x'.repeat(1000) + 'ü', 'ü' + 'x'.repeat(1000)];
    for (const text of texts) expect(utf8Bytes(text).equals(Buffer.from(text))).toBe(true);
  });
});

describe('compressed responses', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_HEARTBEAT_MS: '50', SVC_QUERY_WORKERS: '1' });
    const series = Array.from({ length: 40 }, (_, i) => ({
      labels: [
        { name: '__name__', value: 'requests_total' },
        { name: 'instance', value: `host-${i}` },
        { name: 'note', value: 'quote " snow ☃' },
      ],
      samples: Array.from({ length: 240 }, (_, s) => ({ value: s * (i + 1), timestamp: NOW - HOUR_MS + s * 15_000 })),
    }));
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries: series }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(204);
    const lines = Array.from({ length: 3000 }, (_, i) => [String(BigInt(NOW - HOUR_MS + i * 1000) * 1_000_000n), `line ${i} with "quotes" and ünïcode`]);
    const push = await fetch(`${srv.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: 'api', level: 'info' }, values: lines }] }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
    });
    expect(push.status).toBe(204);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const queries = [
    { name: 'metric points', path: '/api/v1/metrics/query', body: { q: 'rate(requests_total[5m])', s: String(NOW - HOUR_MS), e: String(NOW), step: 15 } },
    { name: 'raw log rows', path: '/api/v1/logs/query', body: { q: '{service_name="api"}', s: String(NOW - HOUR_MS), e: String(NOW), limit: 5000 } },
  ];
  for (const q of queries) {
    it(`carries exactly the same ${q.name} in gzip, br and identity`, async () => {
      const plain = await post(srv.url, q.path, srv.key, q.body);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const results = plain.body.split('\n\n').filter((e) => e.includes('"type":"result"'));
      expect(results.length).toBeGreaterThan(1000);
      for (const encoding of ['gzip', 'br']) {
        const packed = await post(srv.url, q.path, srv.key, q.body, encoding);
        expect(packed.status).toBe(200);
        expect(packed.headers['content-encoding']).toBe(encoding);
        expect(packed.headers.vary).toBe('accept-encoding');
        // Heartbeats depend on timing; every other event is the same, byte for byte and in order.
        const withoutHeartbeats = (text: string): string => text.split('\n\n').filter((e) => !e.includes('"type":"heartbeat"')).join('\n\n');
        expect(withoutHeartbeats(packed.body)).toBe(withoutHeartbeats(plain.body));
        expect(packed.wireBytes * 5).toBeLessThan(plain.wireBytes);
      }
    });
  }

  it('compresses a small answer whole, the same events as identity, and one that goes on in pieces', async () => {
    const instant = { q: 'sum by (instance) (requests_total)', s: String(NOW), e: String(NOW) };
    const plain = await post(srv.url, '/api/v1/metrics/query', srv.key, instant);
    expect(plain.body.split('\n\n').filter((e) => e.includes('"type":"result"'))).toHaveLength(40);
    for (const encoding of ['gzip', 'br']) {
      const packed = await post(srv.url, '/api/v1/metrics/query', srv.key, instant, encoding);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.body).toBe(plain.body);
    }
    // Whole events of a range answer, more than the stream's first piece and less than the hold:
    // held as bytes (non-ASCII labels among them) and compressed whole with the end.
    const medium = { q: 'requests_total', s: String(NOW - HOUR_MS), e: String(NOW), step: 180 };
    const mediumPlain = await post(srv.url, '/api/v1/metrics/query', srv.key, medium);
    expect(mediumPlain.body.length).toBeGreaterThan(100 * 1024);
    expect(mediumPlain.body.length).toBeLessThan(256 * 1024);
    for (const encoding of ['gzip', 'br']) {
      const packed = await post(srv.url, '/api/v1/metrics/query', srv.key, medium, encoding);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.body).toBe(mediumPlain.body);
    }
    // Slices of one point each: the first small write is held, then the stream goes on compressed.
    const sliced = { q: 'mad_over_time(requests_total{instance="host-3"}[1h])', s: String(NOW - HOUR_MS), e: String(NOW), step: 1 };
    const slicedPlain = await post(srv.url, '/api/v1/metrics/query', srv.key, sliced);
    const slicedPacked = await post(srv.url, '/api/v1/metrics/query', srv.key, sliced, 'gzip');
    const withoutHeartbeats = (text: string): string => text.split('\n\n').filter((e) => !e.includes('"type":"heartbeat"')).join('\n\n');
    expect(slicedPlain.body.split('\n\n').filter((e) => e.includes('"type":"result"')).length).toBeGreaterThan(3000);
    expect(withoutHeartbeats(slicedPacked.body)).toBe(withoutHeartbeats(slicedPlain.body));
  });

  it('sends an event stream that ends under 1 KiB as is, with the same events, and keeps the stream headers', async () => {
    const tiny = { q: 'vector(1)', s: String(NOW), e: String(NOW) };
    const plain = await post(srv.url, '/api/v1/metrics/query', srv.key, tiny);
    expect(plain.body.length).toBeLessThan(1024);
    for (const encoding of ['gzip', 'br']) {
      const answer = await post(srv.url, '/api/v1/metrics/query', srv.key, tiny, encoding);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers['content-type']).toBe('text/event-stream');
      expect(answer.headers.vary).toBe('accept-encoding');
      expect(answer.headers['x-svc-query-id']).toBeTruthy();
      expect(answer.body.replace(/"queryId":"[^"]*"/g, '')).toBe(plain.body.replace(/"queryId":"[^"]*"/g, ''));
      expect(answer.body.endsWith('data: {"type":"done","data":{"status":"ok"}}\n\n')).toBe(true);
    }
  });

  it('streams compressed events as they are made: the first arrives while the query still runs', async () => {
    const body = { q: 'mad_over_time(requests_total[1h])', s: String(NOW - HOUR_MS), e: String(NOW), step: 1 };
    const seen = await new Promise<{ firstEventBeforeEnd: boolean; events: string[] }>((resolve, reject) => {
      const req = http.request(`${srv.url}/api/v1/metrics/query`, { method: 'POST', headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', 'accept-encoding': 'gzip' } }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const gunzip = zlib.createGunzip();
        let text = '';
        let firstEventBeforeEnd: boolean | undefined;
        let ended = false;
        res.on('end', () => (ended = true));
        gunzip.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          if (firstEventBeforeEnd === undefined && text.includes('\n\n')) firstEventBeforeEnd = !ended && !text.includes('"type":"done"');
        });
        gunzip.on('end', () => resolve({ firstEventBeforeEnd: firstEventBeforeEnd === true, events: text.split('\n\n').filter((e) => e !== '') }));
        gunzip.on('error', reject);
        res.pipe(gunzip);
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    expect(seen.firstEventBeforeEnd).toBe(true);
    expect(seen.events.at(-1)).toBe('data: {"type":"done","data":{"status":"ok"}}');
  });

  it('compresses JSON answers of 1 KiB or more, and only those', async () => {
    const range = `/prometheus/api/v1/query_range?query=requests_total&start=${(NOW - HOUR_MS) / 1000}&end=${NOW / 1000}&step=60`;
    const plain = await post(srv.url, range, srv.key, undefined, undefined, 'GET');
    const packed = await post(srv.url, range, srv.key, undefined, 'gzip', 'GET');
    expect(plain.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(packed.body).toBe(plain.body);
    expect(packed.wireBytes).toBeLessThan(plain.wireBytes);
    const small = await post(srv.url, '/prometheus/api/v1/query?query=1', srv.key, undefined, 'gzip', 'GET');
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body)).toMatchObject({ status: 'success' });
  });

  it('compresses a large JSON answer off the event loop: the same body in gzip and br as in identity', async () => {
    const range = `/prometheus/api/v1/query_range?query=${encodeURIComponent('rate(requests_total[5m]) / 7')}&start=${(NOW - HOUR_MS) / 1000}&end=${NOW / 1000}&step=15`;
    const plain = await post(srv.url, range, srv.key, undefined, undefined, 'GET');
    expect(plain.status).toBe(200);
    // Above MIN_OFF_LOOP_BYTES, so compressed on the thread pool.
    expect(plain.body.length).toBeGreaterThan(MIN_OFF_LOOP_BYTES);
    for (const encoding of ['gzip', 'br']) {
      const packed = await post(srv.url, range, srv.key, undefined, encoding, 'GET');
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.body).toBe(plain.body);
      expect(packed.wireBytes).toBeLessThan(plain.wireBytes / 3);
    }
  });

  it('answers in identity when compression is turned off', async () => {
    const off = await startTestServer({ SVC_HTTP_COMPRESSION: 'false' });
    try {
      const answer = await post(off.url, queries[0].path, off.key, queries[0].body, 'gzip, br');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.body.endsWith('data: {"type":"done","data":{"status":"ok"}}\n\n')).toBe(true);
    } finally {
      await off.stop();
    }
  });
});
