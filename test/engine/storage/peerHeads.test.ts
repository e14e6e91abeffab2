import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SnapshotLogReader } from '../../../engine/query/snapshotLogReader.js';
import { SnapshotMetricReader } from '../../../engine/query/snapshotMetricReader.js';
import { LocalBlobStore } from '../../../engine/storage/blobStore.js';
import { FileCatalogStore } from '../../../engine/storage/catalogStore.js';
import { narrowHeadExport } from '../../../engine/storage/headFilter.js';
import { HeadWireError, decodeHeadExport, encodeHeadExport, pruneHeadExport } from '../../../engine/storage/headWire.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import { catalogBehind, cutAfterHeads, type PeerHeadSource, type TimeRange } from '../../../engine/storage/peerHeads.js';
import { emptyCatalog, type SegmentMeta } from '../../../engine/storage/catalog.js';
import { Storage } from '../../../engine/storage/storage.js';

const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;
const ORG = 'org-a';

function lines(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({ timestampNs: BigInt(from + i) * 1_000_000n, message: `line ${from + i}`, level: 'info', tags: { job: 'x' } }));
}

function samples(from: number, count: number) {
  const ts = Float64Array.from({ length: count }, (_, i) => from + i);
  return [{ labels: { __name__: 'm', job: 'x' }, timestampsMs: ts, values: ts.map((t) => t * 2) }];
}

/**
 * A read-only storage (a query process's) over the catalog and segment files another storage
 * (the heads' holder) writes, with the holder's heads brought over in the head wire format.
 * The transport is in-process so that cuts can be placed exactly between the moments a query
 * process reads the catalog and the holder reads its heads.
 */
describe('read-only storage over a holder\'s heads', () => {
  let dir: string;
  let holder: Storage;
  let replica: Storage;
  /** around runs inside each fetch: before the holder reads its heads and after, as the race under test needs. */
  let around: { before?: () => Promise<void>; after?: () => Promise<void> };
  let unreachable = false;
  /** asked lists the time range of every fetch, as the holder's endpoint would receive it. */
  let asked: Array<TimeRange | undefined>;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-peers-'));
    const blobStore = new LocalBlobStore(path.join(dir, 'segments'));
    const catalogStore = new FileCatalogStore(path.join(dir, 'catalog.json'));
    holder = await Storage.open({ dir: path.join(dir, 'holder'), blobStore, catalogStore, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
    around = {};
    unreachable = false;
    asked = [];
    const peers: PeerHeadSource = {
      async fetch(org, signal, selectors, range) {
        if (unreachable) return { metrics: [], logs: [], bounds: [], unavailable: ['holder: connection refused'], metadata: [] };
        asked.push(range);
        await around.before?.();
        const exported = holder.exportHeads(org, { metrics: signal === 'metrics', logs: signal === 'logs' });
        // As the internal endpoint narrows it (src/cluster/headRoutes.ts).
        const narrowed = narrowHeadExport(exported, { selectors: selectors?.map((s) => [...s]), minMs: range?.minMs, maxMs: range?.maxMs }, () => false);
        const bytes = Buffer.concat(encodeHeadExport(narrowed, 'h1:'));
        await around.after?.();
        const data = decodeHeadExport(bytes);
        return {
          metrics: data.metrics.map((s) => new SnapshotMetricReader(s)),
          logs: data.logs.map((s) => new SnapshotLogReader(s)),
          bounds: [{ segmentsBefore: data.segmentsBefore }],
          unavailable: [],
          metadata: data.metadata,
        };
      },
    };
    replica = await Storage.open({ dir: path.join(dir, 'replica'), blobStore, catalogStore, readOnly: true, peers });
  });

  afterEach(async () => {
    await replica.close();
    await holder.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function replicaLines(): Promise<string[]> {
    const view = replica.logs(ORG);
    await view.prepare([{ matchers: [], minNs: MIN_NS, maxNs: MAX_NS }]);
    expect(view.unavailableHeads).toEqual([]);
    return view.select([], MIN_NS, MAX_NS).flatMap((s) => s.messages);
  }

  it('reads segments and heads as the holder does', async () => {
    await holder.appendLogs(ORG, lines(0, 10));
    await holder.appendMetrics(ORG, samples(0, 10), [{ name: 'm', type: 'gauge', unit: '', help: 'A gauge.' }]);
    await holder.cut();
    await holder.appendLogs(ORG, lines(10, 5));
    await holder.appendMetrics(ORG, samples(10, 5));
    expect(await replicaLines()).toEqual(holder.logs(ORG).select([], MIN_NS, MAX_NS).flatMap((s) => s.messages));
    expect(await replicaLines()).toHaveLength(15);
    const view = replica.metrics(ORG);
    await view.prepare([{ matchers: [], minMs: -Infinity, maxMs: Infinity }]);
    const [series] = view.select([], -Infinity, Infinity);
    expect([...series.timestampsMs]).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(replica.metricMetadata(ORG).get('m')).toMatchObject({ type: 'gauge' });
  });

  it('counts nothing twice and misses nothing when the holder cuts while a query reads', async () => {
    await holder.appendLogs(ORG, lines(0, 10));
    await holder.cut();
    await holder.appendLogs(ORG, lines(10, 5));
    // The query process has read the catalog; then the holder cuts (the catalog it read lacks
    // that cut), takes writes, reads its heads for the answer, and cuts again before the
    // answer arrives (the catalog read again now has a segment whose lines the heads also hold).
    around = {
      before: async () => {
        await holder.cut();
        await holder.appendLogs(ORG, lines(15, 3));
      },
      after: async () => {
        await holder.cut();
      },
    };
    const got = await replicaLines();
    expect(got).toEqual(Array.from({ length: 18 }, (_, i) => `line ${i}`));
    expect(holder.segments().filter((s) => s.signal === 'logs')).toHaveLength(3);
  });

  it('keeps a view on the catalog it read with its heads while later queries read a newer one', async () => {
    await holder.appendLogs(ORG, lines(0, 10));
    await holder.cut();
    await holder.appendLogs(ORG, lines(10, 5));
    const early = replica.logs(ORG);
    await early.prepare([{ matchers: [], minNs: MIN_NS, maxNs: MAX_NS }]);
    // The holder cuts what the early view holds as heads and merges it with the older segment;
    // a later query reads that catalog, in which the merged segment carries the newer cut's seq.
    await holder.cut();
    expect((await holder.compact()).merged).toHaveLength(1);
    expect(await replicaLines()).toHaveLength(15);
    expect(early.select([], MIN_NS, MAX_NS).flatMap((s) => s.messages)).toEqual(Array.from({ length: 15 }, (_, i) => `line ${i}`));
  });

  it('answers from the segments and names the holder it could not reach', async () => {
    await holder.appendLogs(ORG, lines(0, 10));
    await holder.cut();
    await holder.appendLogs(ORG, lines(10, 5));
    unreachable = true;
    const view = replica.logs(ORG);
    await view.prepare([{ matchers: [], minNs: MIN_NS, maxNs: MAX_NS }]);
    expect(view.unavailableHeads).toEqual(['holder: connection refused']);
    expect(view.select([], MIN_NS, MAX_NS).flatMap((s) => s.messages)).toHaveLength(10);
  });

  it('refuses writes, cuts nothing and writes no catalog', async () => {
    await expect(replica.appendLogs(ORG, lines(0, 1))).rejects.toThrow(/read-only/);
    await holder.appendLogs(ORG, lines(0, 3));
    await holder.cut();
    expect((await replica.compact()).merged).toEqual([]);
    expect(await replica.applyRetention(Date.now() + 1e12)).toEqual([]);
    expect(holder.segments()).toHaveLength(1);
  });

  it('fetches the time a query reads: once for all its slices when the first names the whole, again for a time outside the fetch', async () => {
    await holder.appendMetrics(ORG, samples(0, 10_000));
    const m: LabelMatcher[] = [{ name: '__name__', type: '=', value: 'm' }];
    const times = (view: ReturnType<Storage['metrics']>, minMs: number, maxMs: number) => [...(view.select(m, minMs, maxMs)[0]?.timestampsMs ?? [])];
    const range = (minMs: number, maxMs: number) => [{ matchers: m, minMs, maxMs }];

    // Two slices of a query over 1000..2999: the first slice's fetch covers both.
    const view = replica.metrics(ORG);
    await view.prepare(range(1000, 1999), range(1000, 2999));
    await view.prepare(range(2000, 2999), range(1000, 2999));
    expect(asked).toEqual([{ minMs: 1000, maxMs: 2999 }]);
    // A fifth of the head lies in the range: the chunk came cut to it, and reads as the holder's.
    expect(times(view, -Infinity, Infinity)).toEqual(Array.from({ length: 2000 }, (_, i) => 1000 + i));
    // A later read of a time the fetch did not cover fetches again, for both.
    await view.prepare(range(5000, 5999));
    expect(asked[1]).toEqual({ minMs: 1000, maxMs: 5999 });
    expect(times(view, 5000, 5999)).toEqual(Array.from({ length: 1000 }, (_, i) => 5000 + i));
    expect(times(view, 1000, 2999)).toHaveLength(2000);

    // Slices prepared without the whole query's scope still read everything, by fetching as they go.
    asked = [];
    const sliced = replica.metrics(ORG);
    await sliced.prepare(range(1000, 1999));
    await sliced.prepare(range(2000, 2999));
    expect(asked).toEqual([{ minMs: 1000, maxMs: 1999 }, { minMs: 1000, maxMs: 2999 }]);
    expect(times(sliced, 1000, 2999)).toEqual(Array.from({ length: 2000 }, (_, i) => 1000 + i));

    // Listings read the whole heads, over all time.
    asked = [];
    await replica.refreshListings(ORG);
    expect(asked).toEqual([undefined, undefined]);
  });
});

describe('segment bounds of several writers', () => {
  const seg = (seq: number, writer?: string, writers?: Record<string, number>): SegmentMeta => ({
    id: seq, seq, org: ORG, signal: 'metrics', file: `${seq}`, formatVersion: 1, crc: 0, bytes: 1, rows: 1, minMs: 0, maxMs: 1, createdMs: 0,
    ...(writer !== undefined ? { writer } : {}), ...(writers !== undefined ? { writers } : {}),
  });

  it('leaves out only the segments a holder cut after reading its heads, whatever other writers\' ids are', () => {
    // Blocks from one counter: a reserved 0-63, b reserved 64-127; a has committed up to 5, b up to 70.
    const bounds = [{ writer: 'a', segmentsBefore: 5 }, { writer: 'b', segmentsBefore: 70 }];
    expect(cutAfterHeads(seg(4, 'a'), bounds)).toBe(false);
    expect(cutAfterHeads(seg(5, 'a'), bounds)).toBe(true);
    // b's old segments are above a's bound but not b's: kept (the lowest bound would leave them out).
    expect(cutAfterHeads(seg(69, 'b'), bounds)).toBe(false);
    expect(cutAfterHeads(seg(70, 'b'), bounds)).toBe(true);
    // A dead ingester's segments are final: no holder bounds them.
    expect(cutAfterHeads(seg(500, 'gone'), bounds)).toBe(false);
    // A merge is judged by its inputs' writers; a sole writer's bound (no writer) concerns every segment.
    expect(cutAfterHeads(seg(69, 'compactor', { a: 3, b: 69 }), bounds)).toBe(false);
    expect(cutAfterHeads(seg(69, 'compactor', { a: 6, b: 69 }), bounds)).toBe(true);
    expect(cutAfterHeads(seg(9), [{ segmentsBefore: 9 }])).toBe(true);
    expect(cutAfterHeads(seg(8), [{ segmentsBefore: 9 }])).toBe(false);
  });

  it('reads the catalog again when a holder committed positions it does not record yet', () => {
    const state = { ...emptyCatalog(), nextSegmentId: 10, logPositions: { '0': 40, '1': 12 } };
    expect(catalogBehind(state, [{ writer: 'a', segmentsBefore: 3, covered: { '0': 40, '1': 12 } }])).toBe(false);
    expect(catalogBehind(state, [{ writer: 'a', segmentsBefore: 3, covered: { '0': 38 } }, { writer: 'b', segmentsBefore: 80, covered: { '1': 13 } }])).toBe(true);
    expect(catalogBehind(state, [{ writer: 'a', segmentsBefore: 3, covered: { '2': 1 } }])).toBe(true);
    expect(catalogBehind(state, [{ segmentsBefore: 10 }])).toBe(false);
    expect(catalogBehind(state, [{ segmentsBefore: 11 }])).toBe(true);
  });
});

describe('head wire format', () => {
  it('carries chunks whose readers answer as the originals, and prunes whole chunks by time', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-wire-'));
    const st = await Storage.open({ dir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
    try {
      await st.appendMetrics(ORG, samples(1000, 50));
      await st.appendLogs(ORG, lines(1000, 50));
      const exported = st.exportHeads(ORG, { metrics: true, logs: true });
      const decoded = decodeHeadExport(Buffer.concat(encodeHeadExport(exported, 'p:')));
      expect(decoded.segmentsBefore).toBe(exported.segmentsBefore);
      expect(decoded.metrics[0].chunks[0].id).toBe(`p:${exported.metrics[0].chunks[0].id}`);
      expect(decoded.metrics[0].chunks[0].timestampsMs.buffer).toBeInstanceOf(SharedArrayBuffer);
      const metricsBack = new SnapshotMetricReader(decoded.metrics[0]).select([], -Infinity, Infinity);
      // The worker-side reader also vouches for its values (rising, no marker): facts the head's own reader leaves unsaid.
      expect(metricsBack.map((s) => [s.staleFree, s.resetFree])).toEqual([[true, true]]);
      const withoutFacts = metricsBack.map(({ staleFree: _s, resetFree: _r, ...rest }) => rest);
      expect(withoutFacts).toEqual(st.metrics(ORG).select([], -Infinity, Infinity));
      const logsBack = new SnapshotLogReader(decoded.logs[0]).select([], MIN_NS, MAX_NS);
      expect(logsBack.flatMap((s) => s.messages)).toEqual(st.logs(ORG).select([], MIN_NS, MAX_NS).flatMap((s) => s.messages));
      // Named as kept by the receiver, chunks are not sent again and are taken from what it kept.
      const full = Buffer.concat(encodeHeadExport(exported, 'p:'));
      const ids = new Set([...decoded.metrics, ...decoded.logs].flatMap((s) => s.chunks.map((c) => c.id)));
      const lean = Buffer.concat(encodeHeadExport(exported, 'p:', ids));
      expect(lean.length).toBeLessThan(full.length / 4);
      const byId = new Map([...decoded.metrics, ...decoded.logs].flatMap((s) => s.chunks.map((c) => [c.id, c] as const)));
      const again = decodeHeadExport(lean, { metric: (id) => byId.get(id) as never, log: (id) => byId.get(id) as never });
      expect(again.metrics[0].chunks[0]).toBe(decoded.metrics[0].chunks[0]);
      expect(new SnapshotLogReader(again.logs[0]).select([], MIN_NS, MAX_NS)).toEqual(logsBack);
      expect(() => decodeHeadExport(lean)).toThrow(/not sent and is not known/);
      const pruned = pruneHeadExport(exported, 2000, 3000);
      expect(pruned.metrics).toEqual([]);
      expect(pruned.logs).toEqual([]);
      expect(pruneHeadExport(exported, 1049, Infinity).metrics[0].chunks).toHaveLength(1);
    } finally {
      await st.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses malformed input without reading outside it', () => {
    const good = Buffer.concat(encodeHeadExport({ metrics: [], logs: [], segmentsBefore: 3, partitions: undefined, metadata: [] }, 'x:'));
    expect(decodeHeadExport(good).segmentsBefore).toBe(3);
    expect(decodeHeadExport(good).writer).toBeUndefined();
    expect(decodeHeadExport(Buffer.concat(encodeHeadExport({ metrics: [], logs: [], segmentsBefore: 3, writer: 'w1', partitions: undefined, metadata: [] }, 'x:'))).writer).toBe('w1');
    expect(() => decodeHeadExport(Buffer.from('nope'))).toThrow(HeadWireError);
    expect(() => decodeHeadExport(good.subarray(0, good.length - 1))).toThrow(HeadWireError);
    expect(() => decodeHeadExport(Buffer.concat([good, Buffer.from([0])]))).toThrow(HeadWireError);
    const header = JSON.stringify({
      segmentsBefore: 0,
      partitions: null,
      metadata: [],
      metrics: [[{ id: 'c', bytes: 8, scalars: {}, fields: { refs: ['u32', 0, 100], offsets: ['u32', 0, 0], timestampsMs: ['f64', 0, 0], values: ['f64', 0, 0], labels: ['u8', 0, 0], histogramOffsets: ['u32', 0, 0], histogramBytes: ['u8', 0, 0] } }]],
      logs: [],
    });
    const prefix = Buffer.alloc(9);
    prefix.write('SLHD', 0, 'latin1');
    prefix.writeUInt8(1, 4);
    prefix.writeUInt32LE(Buffer.byteLength(header), 5);
    expect(() => decodeHeadExport(Buffer.concat([prefix, Buffer.from(header), Buffer.alloc(8)]))).toThrow(/outside the chunk/);
  });
});
