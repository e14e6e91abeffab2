import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeRemoteWriteBody, encodeLokiPushBody, type TimeSeriesInput } from '../../engine/index.js';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/service.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * Memory per active series and per active log stream: the real service (in this process, so
 * the heap can be measured after a full collection) receives N new series through
 * POST /api/v1/write, one sample each, in batches as Prometheus sends them, then N log
 * streams through the Loki push endpoint; the growth of the heap and of the resident set,
 * divided by N, is what one more active series or stream costs until the head is cut.
 *
 * `node --expose-gc dist/bench/ingest/seriesMemory.bench.js [series]` gives stable figures;
 * without --expose-gc they include garbage not yet collected. Default: 200,000 series.
 */
const BATCH = 2_000;

async function settle(): Promise<{ heap: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

/** seriesBatch builds series shaped like a typical exporter's: a name and five labels. */
function seriesBatch(from: number, count: number, atMs: number): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let i = from; i < from + count; i++) {
    timeseries.push({
      labels: [
        { name: '__name__', value: 'http_server_requests_total' },
        { name: 'code', value: String(200 + (i % 5)) },
        { name: 'instance', value: `10.0.${(i >> 8) & 255}.${i & 255}:9100` },
        { name: 'job', value: 'checkout' },
        { name: 'method', value: i % 2 === 0 ? 'GET' : 'POST' },
        { name: 'route', value: `/api/v1/items/${i}` },
      ],
      samples: [{ value: i, timestamp: atMs }],
    });
  }
  return encodeRemoteWriteBody({ timeseries });
}

function streamBatch(from: number, count: number, atMs: number): Uint8Array {
  const streams = [];
  for (let i = from; i < from + count; i++) {
    streams.push({
      labels: `{service_name="checkout", k8s_namespace_name="shop", k8s_pod_name="checkout-${i.toString(36)}-x7k2p", k8s_container_name="app"}`,
      entries: [{ timestampNs: BigInt(atMs) * 1_000_000n, line: 'level=info msg="request served" status=200' }],
    });
  }
  return encodeLokiPushBody({ streams });
}

async function measure(
  label: string,
  n: number,
  send: (from: number, count: number) => Promise<void>,
): Promise<void> {
  const before = await settle();
  const started = performance.now();
  for (let from = 0; from < n; from += BATCH) await send(from, Math.min(BATCH, n - from));
  const seconds = (performance.now() - started) / 1000;
  const after = await settle();
  const heapPer = (after.heap - before.heap) / n;
  const rssPer = (after.rss - before.rss) / n;
  console.log(
    `${label}: ${n.toLocaleString('en')} in ${seconds.toFixed(1)} s; heap +${Math.round(heapPer)} B each, ` +
      `RSS +${Math.round(rssPer)} B each (heap +${((after.heap - before.heap) / 2 ** 20).toFixed(0)} MiB, RSS +${((after.rss - before.rss) / 2 ** 20).toFixed(0)} MiB)`,
  );
}

export async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 200_000);
  if ((globalThis as { gc?: unknown }).gc === undefined) console.log('(run with node --expose-gc for figures after a full collection)');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-series-memory-'));
  const config = loadConfig({
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    SVC_QUERY_WORKERS: '1',
    // Keep everything in the head: the figure is the cost of an active series.
    SVC_HEAD_MAX_BYTES: '4GiB',
    SVC_MAX_SERIES_PER_ORG: '0',
    SVC_MAX_STREAMS_PER_ORG: '0',
  });
  const service = await startService(config, { announce: () => undefined });
  try {
    const admin = new KeyAdmin(service.store);
    const org = await admin.createOrg('bench');
    const { key } = await admin.createKey(org.id, 'bench');
    const url = `http://127.0.0.1:${service.port}`;
    const post = async (pathName: string, body: Uint8Array): Promise<void> => {
      const res = await fetch(`${url}${pathName}`, { method: 'POST', body, headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' } });
      if (res.status !== 204) throw new Error(`${pathName}: ${res.status} ${await res.text()}`);
    };
    const atMs = Date.now();
    await measure('active metric series (6 labels, 1 sample)', n, (from, count) => post('/api/v1/write', seriesBatch(from, count, atMs)));
    const streams = Math.max(BATCH, Math.round(n / 4));
    await measure('active log streams (4 indexed tags, 1 line)', streams, (from, count) => post('/loki/api/v1/push', streamBatch(from, count, atMs)));
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
