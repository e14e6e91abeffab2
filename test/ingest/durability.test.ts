import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Storage } from '../../engine/storage/storage.js';
import { FileMetaStore } from '../../src/meta/fileStore.js';
import { startChildServer } from '../support/child.js';

const KEY = 'durability-test-key-0123456789abcdef0123456789';
const ROUNDS = 20;

/**
 * A server ingesting under load is killed with SIGKILL at random moments. Every push that was
 * acknowledged (204) before the kill must be readable afterwards exactly once.
 */
describe('durability under SIGKILL', () => {
  let dataDir = '';
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged record across ${ROUNDS} kills`, async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-durability-'));
    const env = { SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_ORG: 'durable', SVC_BOOTSTRAP_API_KEY: KEY };
    const acknowledged: string[] = [];
    let seq = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startChildServer(env);
      let killed = false;
      const writer = async (): Promise<void> => {
        while (!killed) {
          const ids = Array.from({ length: 20 }, () => `r${round}-line-${seq++}`);
          const now = BigInt(Date.now()) * 1_000_000n;
          const body = JSON.stringify({ streams: [{ stream: { service_name: 'durable' }, values: ids.map((id, i) => [String(now + BigInt(i)), id]) }] });
          try {
            const res = await fetch(`${server.url}/loki/api/v1/push`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' } });
            if (res.status === 204) acknowledged.push(...ids);
            else throw new Error(`unexpected status ${res.status}: ${await res.text()}`);
          } catch (err) {
            if (!killed) throw err;
          }
        }
      };
      const writers = Promise.all([writer(), writer(), writer(), writer()]);
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 300));
      killed = true;
      server.proc.kill('SIGKILL');
      await server.exit;
      await writers;
    }
    expect(acknowledged.length).toBeGreaterThan(ROUNDS * 20);

    const storage = await Storage.open({ dir: dataDir });
    try {
      const meta = await FileMetaStore.open(dataDir);
      const [org] = await meta.listOrgs();
      await meta.close();
      const stored = storage
        .logs(org.id)
        .select([{ name: 'service_name', type: '=', value: 'durable' }], -(2n ** 63n), 2n ** 63n - 1n)
        .flatMap((s) => s.messages);
      const counts = new Map<string, number>();
      for (const line of stored) counts.set(line, (counts.get(line) ?? 0) + 1);
      const missing = acknowledged.filter((id) => !counts.has(id));
      const duplicated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
      expect(missing).toEqual([]);
      expect(duplicated).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 120_000);
});
