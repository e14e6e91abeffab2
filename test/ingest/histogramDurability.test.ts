import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { Storage } from '../../engine/storage/storage.js';
import { FileMetaStore } from '../../src/meta/fileStore.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';
import { startChildServer } from '../support/child.js';

const KEY = 'histogram-durability-key-0123456789abcdef01234567';
const ROUNDS = 4;

/**
 * Native histogram samples acknowledged by remote write (204) survive SIGKILL at random
 * moments: each push writes one integer histogram whose count and sum encode its sequence
 * number, and after the kills every acknowledged one reads back once, with its buckets.
 */
describe('native histogram durability under SIGKILL', () => {
  let dataDir = '';
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged histogram across ${ROUNDS} kills`, async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-hist-durability-'));
    const env = { SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_ORG: 'durable', SVC_BOOTSTRAP_API_KEY: KEY };
    const base = Date.now() - 60_000;
    const acknowledged: number[] = [];
    let seq = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startChildServer(env);
      let killed = false;
      const writer = async (): Promise<void> => {
        while (!killed) {
          const n = ++seq;
          // Bucket 1 holds n observations, bucket 3 holds 2n: count 3n, sum n.
          const histogram = { countInt: String(3 * n), sum: n, schema: 0, zeroThreshold: 2 ** -128, zeroCountInt: '0', positiveSpans: [{ offset: 1, length: 1 }, { offset: 1, length: 1 }], positiveDeltas: [String(n), String(n)], timestamp: String(base + n) };
          const body = snappyCompress(pbEncode(WriteRequest, { timeseries: [{ labels: [{ name: '__name__', value: 'durable_latency' }], histograms: [histogram] }] }));
          try {
            const res = await fetch(`${server.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' } });
            if (res.status === 204) acknowledged.push(n);
            else throw new Error(`unexpected status ${res.status}: ${await res.text()}`);
          } catch (err) {
            if (!killed) throw err;
          }
        }
      };
      const writers = Promise.all([writer(), writer(), writer()]);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 300));
      killed = true;
      server.proc.kill('SIGKILL');
      await server.exit;
      await writers;
    }
    expect(acknowledged.length).toBeGreaterThan(ROUNDS);

    const storage = await Storage.open({ dir: dataDir });
    try {
      const meta = await FileMetaStore.open(dataDir);
      const [org] = await meta.listOrgs();
      await meta.close();
      const [series] = storage.metrics(org.id).select([{ name: '__name__', type: '=', value: 'durable_latency' }], -Infinity, Infinity);
      const stored = new Map<number, number>();
      series.timestampsMs.forEach((t, i) => {
        const h = series.histograms?.[i];
        expect(h).toBeDefined();
        const n = t - base;
        expect({ count: h!.count, sum: h!.sum, posIndex: [...h!.posIndex], posCount: [...h!.posCount] }).toEqual({ count: 3 * n, sum: n, posIndex: [1, 3], posCount: [n, 2 * n] });
        stored.set(n, (stored.get(n) ?? 0) + 1);
      });
      expect(acknowledged.filter((n) => !stored.has(n))).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 120_000);
});
