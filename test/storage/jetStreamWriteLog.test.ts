import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamWriteLog } from '../../engine/storage/nats/jetStreamWriteLog.js';
import { Storage, type StorageEvent } from '../../engine/storage/storage.js';
import type { WriteLog } from '../../engine/storage/writeLog.js';
import { natsAvailable, startNatsCluster, type NatsCluster } from '../support/natsCluster.js';

/**
 * The WriteLog contract on a real 3-node JetStream cluster, and the storage over it: heads
 * rebuilt from the log after a restart hold exactly what the segments do not.
 */
describe.runIf(natsAvailable('the JetStream write log contract test'))('JetStreamWriteLog', () => {
  let cluster: NatsCluster;
  const dirs: string[] = [];
  let n = 0;

  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const open = (stream: string, partitions = 3, extra: { trim?: boolean; maxAgeMs?: number; maxBytes?: number } = {}): Promise<JetStreamWriteLog> =>
    JetStreamWriteLog.open({ servers: cluster.urls, stream, replicas: 3, partitions, ackTimeoutMs: 5000, ...extra });

  /** streamState reads the stream's configuration and message count per subject as an operator would. */
  async function streamState(stream: string): Promise<{ messages: number; perSubject: Record<string, number>; maxAge: number; maxBytes: number; discard: string }> {
    const nc = await connect({ servers: cluster.urls });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(stream, { subjects_filter: '>' });
      return { messages: info.state.messages, perSubject: info.state.subjects ?? {}, maxAge: info.config.max_age, maxBytes: info.config.max_bytes, discard: info.config.discard };
    } finally {
      await nc.close();
    }
  }

  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  const text = (b: Uint8Array): string => new TextDecoder().decode(b);

  /** readAll collects what a reader delivers after `after` until `count` records arrived. */
  async function readAll(log: WriteLog, partition: number, after: number, count: number): Promise<Array<[number, string]>> {
    const got: Array<[number, string]> = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const reader = log.read(partition, after, (position, record) => {
      got.push([position, text(record)]);
      if (got.length === count) done();
    }, () => undefined);
    await Promise.race([finished, new Promise((r) => setTimeout(r, 10_000))]);
    await reader.stop();
    return got;
  }

  it('orders records per partition, reads from a position, and keeps committed positions', async () => {
    const log = await open(`CONTRACT_${process.pid}_${++n}`);
    try {
      expect(log.identity).toMatch(/^CONTRACT_.*@\d{4}-/);
      expect(await log.endPosition(0)).toBe(0);
      const p0 = [await log.append(0, bytes('a')), await log.append(0, bytes('b'))];
      const p1 = await log.append(1, bytes('x'));
      const p0c = await log.append(0, bytes('c'));
      expect(p0[0]).toBeLessThan(p0[1]);
      expect(p0[1]).toBeLessThan(p0c);
      expect(await log.endPosition(0)).toBe(p0c);
      expect(await log.endPosition(1)).toBe(p1);
      expect(await log.endPosition(2)).toBe(0);
      // Partition 0 only, in order, and only after the position asked for.
      expect(await readAll(log, 0, 0, 3)).toEqual([[p0[0], 'a'], [p0[1], 'b'], [p0c, 'c']]);
      expect(await readAll(log, 0, p0[0], 2)).toEqual([[p0[1], 'b'], [p0c, 'c']]);
      expect(await log.committed(0)).toBe(0);
      await log.commit(0, p0[1]);
      await log.commit(0, p0c);
      expect(await log.committed(0)).toBe(p0c);
      expect(await log.committed(1)).toBe(0);
      await expect(log.append(3, bytes('out of range'))).rejects.toThrow(/partition 3 out of range/);
    } finally {
      await log.close();
    }
  });

  it('trims a partition through each committed position and keeps what is above it', async () => {
    const stream = `TRIM_${process.pid}_${++n}`;
    const log = await open(stream);
    try {
      const p0 = [];
      for (const t of ['a', 'b', 'c', 'd']) p0.push(await log.append(0, bytes(t)));
      const p1 = await log.append(1, bytes('x'));
      expect((await streamState(stream)).messages).toBe(5);
      // Everything up to b is in segments: a and b go, c and d stay, partition 1 is untouched.
      await log.commit(0, p0[1]);
      expect((await streamState(stream)).perSubject).toEqual({ [`${stream}.p.0`]: 2, [`${stream}.p.1`]: 1 });
      expect(await readAll(log, 0, 0, 2)).toEqual([[p0[2], 'c'], [p0[3], 'd']]);
      expect(await log.committed(0)).toBe(p0[1]);
      // A commit below what was trimmed (a slower process's older cut) removes nothing more.
      await log.commit(0, p0[0]);
      expect((await streamState(stream)).messages).toBe(3);
      // A partition whose records are all covered is empty; new records get later positions.
      await log.commit(1, p1);
      expect(await log.endPosition(1)).toBe(0);
      const next = await log.append(1, bytes('y'));
      expect(next).toBeGreaterThan(p1);
      expect(await readAll(log, 1, p1, 1)).toEqual([[next, 'y']]);
      expect((await streamState(stream)).messages).toBe(3);
    } finally {
      await log.close();
    }
    // With trimming off, a commit only records the position.
    const keep = await open(stream, 3, { trim: false });
    try {
      const before = (await streamState(stream)).messages;
      await keep.commit(0, await keep.endPosition(0));
      expect((await streamState(stream)).messages).toBe(before);
    } finally {
      await keep.close();
    }
  });

  it('sets the stream\'s age and size bounds, on a new stream and on one that exists', async () => {
    const stream = `LIMITS_${process.pid}_${++n}`;
    let log = await open(stream);
    await log.close();
    // No bounds by default; a full stream refuses writes rather than dropping old records.
    expect(await streamState(stream)).toMatchObject({ maxAge: 0, maxBytes: -1, discard: 'new' });
    log = await open(stream, 3, { maxAgeMs: 3_600_000, maxBytes: 4096 });
    try {
      expect(await streamState(stream)).toMatchObject({ maxAge: 3_600_000_000_000, maxBytes: 4096, discard: 'new' });
      const record = new Uint8Array(1500);
      await log.append(0, record);
      await log.append(0, record);
      // Past max_bytes the write is not acknowledged (the client gets 503), and nothing stored is dropped.
      await expect(log.append(0, record)).rejects.toThrow(/did not acknowledge/);
      expect((await streamState(stream)).messages).toBe(2);
      // Trimming frees the room.
      await log.commit(0, await log.endPosition(0));
      await log.append(0, record);
    } finally {
      await log.close();
    }
  }, 30_000);

  it('rebuilds the heads from the log after a restart, without the records the segments hold', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-jslog-'));
    dirs.push(dir);
    const stream = `STORE_${process.pid}_${++n}`;
    const events: StorageEvent[] = [];
    const openStorage = async (log: WriteLog): Promise<Storage> =>
      Storage.open({ dir, writeLog: log, maintenanceIntervalMs: 0, compactionIntervalMs: 0, onEvent: (e) => events.push(e) });
    const line = (i: number) => ({ timestampNs: BigInt(Date.now()) * 1_000_000n + BigInt(i), message: `line-${i}`, level: 'info', tags: { service_name: `svc-${i % 5}` } });
    const all = (s: Storage): string[] =>
      s
        .logs('org')
        .select([], -(2n ** 63n), 2n ** 63n - 1n)
        .flatMap((st) => st.messages)
        .sort();

    let log = await open(stream, 4);
    let storage = await openStorage(log);
    await storage.appendLogs('org', Array.from({ length: 20 }, (_, i) => line(i)));
    await storage.appendMetrics('org', [{ labels: { __name__: 'm', k: 'v' }, timestampsMs: new Float64Array([Date.now()]), values: new Float64Array([1]) }]);
    // Read-your-writes: the storage applied its own write before the append resolved.
    expect(all(storage)).toHaveLength(20);
    const cut = await storage.cut();
    expect(cut.segments.length).toBeGreaterThan(0);
    await storage.appendLogs('org', Array.from({ length: 10 }, (_, i) => line(100 + i)));
    const catalog = JSON.parse(await readFile(path.join(dir, 'catalog.json'), 'utf8')) as { logPositions: Record<string, number>; logIdentity: string };
    expect(catalog.logIdentity).toBe(log.identity);
    expect(Object.keys(catalog.logPositions).length).toBeGreaterThan(0);
    await storage.close();
    await log.close();

    // A new process: segments from the catalog, the rest replayed from the log.
    log = await open(stream, 4);
    storage = await openStorage(log);
    const lines = all(storage);
    expect(lines).toHaveLength(30);
    expect(new Set(lines).size).toBe(30);
    expect(storage.metrics('org').select([], 0, Date.now() + 1000).map((s) => s.values.length)).toEqual([1]);
    // The log learnt how far the segments cover each partition.
    const committed = await Promise.all(Object.keys(catalog.logPositions).map((p) => log.committed(Number(p))));
    expect(committed).toEqual(Object.values(catalog.logPositions));
    await storage.close();
    await log.close();

    // The same data directory over another stream: its positions mean nothing there.
    log = await open(`${stream}_NEW`, 4);
    storage = await openStorage(log);
    expect(events.some((e) => e.message.includes('belong to another log'))).toBe(true);
    expect(all(storage)).toHaveLength(20);
    await storage.close();
    await log.close();
  }, 60_000);
});
