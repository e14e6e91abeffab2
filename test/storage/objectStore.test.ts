import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { TEST_S3_CREDENTIALS, startTestS3, type TestS3 } from '../support/s3Server.js';
import { LogCapture, waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'object-store-test-key-0123456789abcdef0123456789';
const BASE_MS = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

interface Node {
  dataDir: string;
  env: Record<string, string>;
  service: RunningService;
  logs: LogCapture;
  url: string;
}

async function startNode(dataDir: string, env: Record<string, string>): Promise<Node> {
  const logs = new LogCapture();
  const config = loadConfig({
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'info',
    SVC_BOOTSTRAP_ORG: 'store-test',
    SVC_BOOTSTRAP_API_KEY: KEY,
    // Small heads: every few writes are cut into segments.
    SVC_HEAD_MAX_BYTES: '8KiB',
    SVC_QUERY_WORKERS: '1',
    ...env,
  });
  const service = await startService(config, { logDestination: logs, announce: () => {} });
  return { dataDir, env, service, logs, url: `http://127.0.0.1:${service.port}` };
}

/** batch makes one remote write body and one Loki push body, different for every `n`. */
function batch(n: number): { metrics: Uint8Array; logs: string } {
  const timeseries = Array.from({ length: 6 }, (_, s) => ({
    labels: [
      { name: '__name__', value: 'requests_total' },
      { name: 'job', value: `job-${s % 3}` },
      { name: 'instance', value: `i-${s}` },
    ],
    samples: Array.from({ length: 10 }, (_, k) => ({ timestamp: BASE_MS + (n * 10 + k) * 1000, value: n * 10 + k + s })),
  }));
  const values = Array.from({ length: 8 }, (_, k) => [String(BigInt(BASE_MS + n * 1000 + k) * 1_000_000n), `batch ${n} line ${k}`]);
  const logs = JSON.stringify({ streams: [{ stream: { service_name: 'checkout', level: n % 2 ? 'info' : 'error' }, values }] });
  return { metrics: encodeRemoteWriteBody({ timeseries }), logs };
}

async function ingest(node: Node, n: number): Promise<void> {
  const { metrics, logs } = batch(n);
  const headers = { 'x-svc-api-key': KEY };
  const rw = await fetch(`${node.url}/api/v1/write`, { method: 'POST', body: metrics, headers: { ...headers, 'content-type': 'application/x-protobuf' } });
  expect(rw.status, await rw.text()).toBe(204);
  const push = await fetch(`${node.url}/loki/api/v1/push`, { method: 'POST', body: logs, headers: { ...headers, 'content-type': 'application/json' } });
  expect(push.status, await push.text()).toBe(204);
}

/** answers runs the same metric and log queries on a node, for comparing nodes. */
async function answers(node: Node): Promise<unknown[]> {
  const endMs = BASE_MS + 3_600_000;
  const requests: Array<[string, unknown]> = [
    ['/api/v1/metrics/query', { q: 'sum by (job) (count_over_time(requests_total[2h]))', s: String(endMs), e: String(endMs) }],
    ['/api/v1/metrics/query', { q: 'sum by (instance) (requests_total)', s: String(BASE_MS), e: String(BASE_MS + 600_000), step: 60 }],
    ['/api/v1/logs/query', { q: '{service_name="checkout"}', s: String(BASE_MS - 1000), e: String(endMs), limit: 100_000 }],
    ['/api/v1/logs/query', { q: 'sum by (level) (count_over_time({service_name="checkout"}[2h]))', s: String(endMs), e: String(endMs) }],
  ];
  const out: unknown[] = [];
  for (const [route, body] of requests) {
    const res = await readSse(await query(node.url, route, KEY, body));
    const results = res.events.filter((e) => e.type === 'result').map((e) => JSON.stringify(e.data));
    expect(res.events.some((e) => e.type === 'error'), JSON.stringify(res.events.slice(-2))).toBe(false);
    out.push(results.sort());
  }
  return out;
}

function lineCount(answer: unknown[]): number {
  return (answer[2] as string[]).length;
}

/**
 * The real service with segments on an S3-compatible store (s3rver in its own process) against
 * the same service on local disk: same data through remote write and Loki push, same answers;
 * after a restart with an empty cache; and through ten seconds without the object store, while
 * writes keep being acknowledged and cuts are retried until the store is back.
 */
describe('segments on object storage', () => {
  let s3: TestS3;
  const dirs: string[] = [];
  const nodes: Node[] = [];

  beforeAll(async () => {
    s3 = await startTestS3();
    // The service runs in this process and takes credentials from the standard AWS variables.
    process.env.AWS_ACCESS_KEY_ID = TEST_S3_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = TEST_S3_CREDENTIALS.secretAccessKey;
  });
  afterAll(async () => {
    for (const node of nodes) await node.service.stop().catch(() => undefined);
    await s3.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-objstore-'));
    dirs.push(dir);
    return dir;
  }

  it('answers as the local store does, after a restart with an empty cache and through an outage', async () => {
    const local = await startNode(await tempDir(), {});
    const cacheDir = path.join(await tempDir(), 'cache');
    let remote = await startNode(await tempDir(), { ...s3.env('system/'), SVC_S3_CACHE_DIR: cacheDir });
    nodes.push(local, remote);

    let n = 0;
    for (; n < 30; n++) {
      await ingest(local, n);
      await ingest(remote, n);
    }
    await waitFor(() => remote.service.storage.segments().length >= 4, 10_000);
    const expected = await answers(local);
    expect(lineCount(expected)).toBe(30 * 8);
    expect(await answers(remote)).toEqual(expected);

    // Restart over the same data directory with the cache wiped: segments come from the store.
    await remote.service.stop();
    await rm(cacheDir, { recursive: true, force: true });
    remote = await startNode(remote.dataDir, remote.env);
    nodes.push(remote);
    expect(await answers(remote)).toEqual(expected);

    // Ten seconds without the object store: every write is still acknowledged (the WAL has it).
    const checkpointBefore = remote.service.storage.stats().walCheckpoint;
    await s3.stop();
    const outageEnds = Date.now() + 10_000;
    for (; Date.now() < outageEnds; n++) {
      await ingest(local, n);
      await ingest(remote, n);
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitFor(() => remote.logs.text().includes('cutting heads into segments failed'), 20_000);
    expect(remote.service.storage.stats().walCheckpoint).toBe(checkpointBefore);
    await s3.start();
    // Cuts are retried (the heads frozen by a failed cut are cut again at the next check or write).
    for (let more = 0; more < 5; more++, n++) {
      await ingest(local, n);
      await ingest(remote, n);
    }
    await waitFor(() => remote.service.storage.stats().walCheckpoint > checkpointBefore, 60_000);
    const afterOutage = await answers(local);
    expect(lineCount(afterOutage)).toBe(n * 8);
    expect(await answers(remote)).toEqual(afterOutage);

    await remote.service.stop();
    await rm(cacheDir, { recursive: true, force: true });
    remote = await startNode(remote.dataDir, remote.env);
    nodes.push(remote);
    expect(await answers(remote)).toEqual(afterOutage);
  }, 180_000);
});
