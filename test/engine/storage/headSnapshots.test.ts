import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotLogReader } from '../../../engine/query/snapshotLogReader.js';
import { shareLogs } from '../../../engine/query/taskData.js';
import { runTask, taskTransferables, type QueryTask } from '../../../engine/query/tasks.js';
import { unpackRows } from '../../../engine/query/rowPacking.js';
import { LogHead, type LogEntry } from '../../../engine/storage/logHead.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { ALL_NS, openStorage, tempDir } from './segmentFixtures.js';

const SMALL_CHUNKS = { rows: 100, bytes: 1024 * 1024 };
const BASE_NS = 1_700_000_000_000_000_000n;

/** lines makes `n` records from `from` on, in time order unless `shuffle` moves some back. */
function lines(random: SeededRandom, from: number, n: number, shuffle = false): LogEntry[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const late = shuffle && random.chance(0.2) ? BigInt(random.int(1, 50)) * 1_000_000n : 0n;
    return {
      // Pairs of lines share a timestamp, so arrival order must break ties.
      timestampNs: BASE_NS + BigInt(Math.floor(i / 2)) * 1_000_000n - late,
      message: `line ${i} ${'ü'.repeat(i % 5)}`,
      level: random.pick(['info', 'error', '']),
      tags: { app: random.pick(['a', 'b', 'c']), route: random.pick(['/x', '/y']), ...(random.chance(0.1) ? { level: 'shadowed' } : {}) },
    };
  });
}

const MATCHERS: LabelMatcher[][] = [
  [],
  [{ name: 'app', type: '=', value: 'a' }],
  [{ name: 'level', type: '=', value: 'error' }, { name: 'route', type: '!=', value: '/x' }],
  [{ name: 'app', type: '=~', value: 'b|c' }],
];

describe('log head snapshots', () => {
  it('answer every selection exactly as the live head, across sealed chunks, the tail and late lines', () => {
    for (const seed of [1, 2, 3]) {
      const random = new SeededRandom(seed);
      const head = new LogHead(new Set(['app']), SMALL_CHUNKS);
      head.append(lines(random, 0, 250, seed !== 1));
      head.snapshot();
      head.append(lines(random, 250, 77, seed === 3));
      const reader = new SnapshotLogReader(head.snapshot());
      expect(reader.rowCount, `seed ${seed}`).toBe(head.rowCount);
      const windows: Array<[bigint, bigint]> = [[...ALL_NS], [BASE_NS + 20_000_000n, BASE_NS + 90_000_000n], [BASE_NS + 140_000_000n, BASE_NS + 140_000_000n]];
      for (const matchers of MATCHERS) {
        for (const [minNs, maxNs] of windows) {
          const label = `seed ${seed} ${JSON.stringify(matchers)} ${minNs}..${maxNs}`;
          expect(reader.select(matchers, minNs, maxNs), label).toEqual(head.select(matchers, minNs, maxNs));
          expect(reader.select(matchers, minNs, maxNs, { lines: false }), label).toEqual(head.select(matchers, minNs, maxNs, { lines: false }));
          const tagSets = (r: { forEachTagSet: LogHead['forEachTagSet'] }): unknown[] => {
            const out: unknown[] = [];
            r.forEachTagSet(matchers, minNs, maxNs, (tags) => void out.push(tags));
            return out;
          };
          expect(tagSets(reader), label).toEqual(tagSets(head));
        }
      }
    }
  });

  it('packs rows once: an unchanged head reuses its snapshot and an append repacks only the open tail', () => {
    const random = new SeededRandom(7);
    const head = new LogHead(new Set(['app']), SMALL_CHUNKS);
    head.append(lines(random, 0, 250));
    const first = head.snapshot();
    // Two sealed chunks of 100 rows and a tail of 50.
    expect(first.chunks.map((c) => c.rows)).toEqual([100, 100, 50]);
    expect(head.snapshotStats.chunksPacked).toBe(3);
    for (const c of first.chunks) expect(c.text.buffer).toBeInstanceOf(SharedArrayBuffer);

    expect(head.snapshot()).toBe(first);
    expect(head.snapshotStats.chunksPacked).toBe(3);

    head.append(lines(random, 250, 10));
    const second = head.snapshot();
    expect(second.chunks.slice(0, 2)).toEqual(first.chunks.slice(0, 2));
    expect(second.chunks[0]).toBe(first.chunks[0]);
    expect(second.chunks[1]).toBe(first.chunks[1]);
    expect(second.chunks[2].rows).toBe(60);
    expect(head.snapshotStats.chunksPacked).toBe(4);

    // Past the limit, the tail is sealed and a new tail starts.
    head.append(lines(random, 260, 60));
    expect(head.snapshot().chunks.map((c) => c.rows)).toEqual([100, 100, 100, 20]);
    expect(head.snapshotStats.chunksPacked).toBe(6);
  });

  it('seals chunks as lines arrive and reads sealed rows back from them like a head that never seals', () => {
    const random = new SeededRandom(5);
    const sealing = new LogHead(new Set(['app']), SMALL_CHUNKS);
    const unsealed = new LogHead(new Set(['app']), { rows: 1e9, bytes: 1e12 });
    const batches = [lines(random, 0, 130, true), lines(random, 130, 171), lines(random, 301, 12, true)];
    // Messages past ASCII, a pair of surrogates among them, in the sealed rows and in the tail.
    for (const batch of batches) for (const [i, line] of batch.entries()) if (i % 7 === 0) line.message += ` 🚀 ${'€'.repeat(i % 3)}`;
    for (const batch of batches) {
      sealing.append(batch);
      unsealed.append(batch);
    }
    // Sealed on append, before any snapshot was asked for: three chunks of 100 and a tail of 13.
    expect(sealing.snapshotStats.chunksPacked).toBe(3);
    expect(unsealed.snapshotStats.chunksPacked).toBe(0);
    for (const matchers of MATCHERS) {
      for (const [minNs, maxNs] of [[...ALL_NS], [BASE_NS + 30_000_000n, BASE_NS + 120_000_000n]] as Array<[bigint, bigint]>) {
        expect(sealing.select(matchers, minNs, maxNs), `${JSON.stringify(matchers)} ${minNs}`).toEqual(unsealed.select(matchers, minNs, maxNs));
      }
    }
    expect(sealing.columns()).toEqual(unsealed.columns());
    expect(sealing.cutInput()).toEqual(unsealed.cutInput());
    expect(sealing.estimatedBytes).toBe(unsealed.estimatedBytes);
    expect(sealing.snapshot().chunks.map((c) => c.rows)).toEqual([100, 100, 100, 13]);
  });

  it('reads chunks of ASCII lines decoded whole exactly as line by line, beside chunks that are not', () => {
    const random = new SeededRandom(9);
    const head = new LogHead(new Set(['app']), SMALL_CHUNKS);
    const batch = lines(random, 0, 420, true).map((line, i) => ({ ...line, message: i >= 300 && i < 310 ? `${line.message} ü` : `plain ${i} ${'x'.repeat(i % 7)}` }));
    head.append(batch);
    const snapshot = head.snapshot();
    expect(snapshot.chunks.map((c) => c.ascii)).toEqual([true, true, true, false, true]);
    const reader = new SnapshotLogReader(snapshot);
    // Everything (every chunk decoded whole), one app (a third of each chunk) and a narrow window (per line).
    for (const matchers of MATCHERS) {
      for (const [minNs, maxNs] of [[...ALL_NS], [BASE_NS + 20_000_000n, BASE_NS + 40_000_000n]] as Array<[bigint, bigint]>) {
        expect(reader.select(matchers, minNs, maxNs), `${JSON.stringify(matchers)} ${minNs}`).toEqual(head.select(matchers, minNs, maxNs));
      }
    }
  });

  it('seals a chunk by the bytes of its messages as well as by rows', () => {
    const head = new LogHead(new Set(['app']), { rows: 1000, bytes: 4096 });
    head.append(Array.from({ length: 10 }, (_, i) => ({ timestampNs: BASE_NS + BigInt(i), message: 'x'.repeat(1500), level: '', tags: { app: 'a' } })));
    expect(head.snapshot().chunks.map((c) => c.rows)).toEqual([3, 3, 3, 1]);
  });
});

describe('log head snapshots shared by query tasks', () => {
  let dir: string;
  let storage: Storage;
  const org = 'org-shared';
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    await storage.appendLogs(org, lines(new SeededRandom(11), 0, 400));
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  const rawTask = (startNs: bigint, endNs: bigint): QueryTask & { kind: 'logql-raw' } => ({
    kind: 'logql-raw',
    query: '{app="a"}',
    startNs,
    endNs,
    limit: 1000,
    direction: 'forward',
    data: shareLogs(storage.logs(org), [{ matchers: [{ name: 'app', type: '=', value: 'a' }], minNs: startNs, maxNs: endNs }]),
  });

  it('gives two tasks of a raw query, and a later query over the unchanged head, the same shared memory', () => {
    const middle = BASE_NS + 100_000_000n;
    const older = rawTask(BASE_NS, middle);
    const newer = rawTask(middle + 1n, BASE_NS + 1_000_000_000n);
    const bytesOf = (task: QueryTask & { kind: 'logql-raw' }): SharedArrayBuffer[] => task.data.heads.flatMap((h) => h.chunks.map((c) => c.text.buffer as SharedArrayBuffer));
    expect(bytesOf(older).length).toBeGreaterThan(0);
    for (const b of bytesOf(older)) expect(b).toBeInstanceOf(SharedArrayBuffer);
    expect(bytesOf(newer)).toEqual(bytesOf(older));
    bytesOf(newer).forEach((b, i) => expect(b).toBe(bytesOf(older)[i]));
    // Nothing is moved or copied to post the task: the clone still points at shared memory.
    expect(taskTransferables(older)).toEqual([]);
    const posted = structuredClone(older);
    for (const b of bytesOf(posted)) expect(b).toBeInstanceOf(SharedArrayBuffer);

    const later = rawTask(BASE_NS, BASE_NS + 1_000_000_000n);
    expect(later.data.heads[0]).toBe(older.data.heads[0]);

    // Tasks over the shared snapshot answer like the store, slice by slice.
    const rows = [older, newer].flatMap((task) => {
      const { result } = runTask(structuredClone(task));
      if (!('rows' in result)) throw new Error(JSON.stringify(result));
      return unpackRows(result.rows).map((r) => r.timestampNs);
    });
    const direct = storage.logs(org).select([{ name: 'app', type: '=', value: 'a' }], BASE_NS, BASE_NS + 1_000_000_000n);
    expect(rows.length).toBe(direct.reduce((n, s) => n + s.timestampsNs.length, 0));
    expect(rows.length).toBeGreaterThan(50);
  });

  it('takes a new snapshot once the head changes, reusing its sealed chunks', async () => {
    const before = rawTask(...ALL_NS).data.heads[0];
    await storage.appendLogs(org, lines(new SeededRandom(12), 400, 5));
    const after = rawTask(...ALL_NS).data.heads[0];
    expect(after).not.toBe(before);
    expect(after.chunks.reduce((n, c) => n + c.rows, 0)).toBe(405);
  });
});
