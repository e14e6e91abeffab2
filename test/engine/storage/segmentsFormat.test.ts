import { promises as fs } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobNotFoundError, LocalBlobStore } from '../../../engine/storage/blobStore.js';
import { emptyCatalog } from '../../../engine/storage/catalog.js';
import { CatalogError, FileCatalogStore } from '../../../engine/storage/catalogStore.js';
import { LogHead } from '../../../engine/storage/logHead.js';
import { LogSegmentReader, MAX_TAG_VALUES, encodeLogSegment } from '../../../engine/storage/logSegment.js';
import { compileMatchers } from '../../../engine/storage/matchers.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import { MetricSegmentReader, encodeMetricSegment } from '../../../engine/storage/metricSegment.js';
import { LATEST_SEGMENT_FORMAT_VERSION, SegmentFormatError, decodeSegmentFile, encodeSegmentFile, readSegmentFile } from '../../../engine/storage/segmentFormat.js';
import { staleMarkerArray } from '../../../engine/storage/staleness.js';
import { tempDir } from './segmentFixtures.js';

const f64 = (xs: number[]): Float64Array => Float64Array.from(xs);

function withStale(values: number[], staleAt: number): Float64Array {
  const out = f64(values);
  out.set(staleMarkerArray(), staleAt);
  return out;
}

/** shared copies bytes into a SharedArrayBuffer, as the local blob store reads files. */
function shared(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

describe('segment file framing', () => {
  const sections = [Uint8Array.from([1, 2, 3]), Uint8Array.from({ length: 17 }, (_, i) => i)];

  it('round-trips sections, each starting 8-byte aligned', () => {
    const { bytes, crc } = encodeSegmentFile(sections);
    const back = decodeSegmentFile(bytes, crc);
    expect(back.map((s) => [...s])).toEqual(sections.map((s) => [...s]));
    for (const s of back) expect(s.byteOffset % 8).toBe(0);
    expect(crc).toBe(crc32(bytes.subarray(12)));
  });

  it.each([
    ['a flipped byte', (b: Uint8Array) => void (b[b.length - 2] ^= 1), /checksum mismatch/],
    ['a truncated file', (b: Uint8Array) => b.subarray(0, 10), /too short/],
    ['a foreign file', (b: Uint8Array) => void (b[0] = 0x41), /bad magic/],
  ])('rejects %s', (_name, damage, message) => {
    const { bytes } = encodeSegmentFile(sections);
    const damaged = (damage(bytes) as Uint8Array | undefined) ?? bytes;
    expect(() => decodeSegmentFile(damaged)).toThrow(SegmentFormatError);
    expect(() => decodeSegmentFile(damaged)).toThrow(message);
  });

  it('rejects a newer format version and a checksum that differs from the catalog', () => {
    const { bytes, crc } = encodeSegmentFile(sections);
    const view = new DataView(bytes.buffer);
    view.setUint32(12, LATEST_SEGMENT_FORMAT_VERSION + 1, true);
    view.setUint32(8, crc32(bytes.subarray(12)), true);
    expect(() => decodeSegmentFile(bytes)).toThrow(/unsupported segment format version 4/);
    const other = encodeSegmentFile([Uint8Array.from([9])]);
    expect(() => decodeSegmentFile(other.bytes, crc)).toThrow(/differs from the catalog/);
  });
});

describe('metric segments', () => {
  const series: SeriesColumns[] = [
    { labels: { __name__: 'up', job: 'b' }, timestampsMs: f64([10, 20, 30]), values: withStale([1, 1, 0], 2) },
    { labels: { __name__: 'http_total', job: 'a' }, timestampsMs: f64([5, 40]), values: f64([3.5, -0]) },
    { labels: { job: 'nameless' }, timestampsMs: f64([7]), values: f64([NaN]) },
    { labels: { __name__: 'empty' }, timestampsMs: f64([]), values: f64([]) },
  ];

  it('records the catalog facts and leaves out empty series', () => {
    const enc = encodeMetricSegment(series)!;
    expect(enc).toMatchObject({ rows: 6, seriesCount: 3, minMs: 5, maxMs: 40, metricNames: ['', 'http_total', 'up'] });
    expect(encodeMetricSegment([series[3]])).toBeUndefined();
  });

  it('writes format version 2 and reads it back bit for bit, decoding each series once', () => {
    const enc = encodeMetricSegment(series)!;
    expect(enc.formatVersion).toBe(2);
    expect(readSegmentFile(enc.bytes).version).toBe(2);
    const reader = MetricSegmentReader.decode(shared(enc.bytes), enc.crc);
    const before = reader.byteSize;
    const all = reader.select([], [], -Infinity, Infinity);
    expect(all.map((s) => s.labels)).toEqual([{ __name__: 'http_total', job: 'a' }, { __name__: 'up', job: 'b' }, { job: 'nameless' }]);
    expect(all.map((s) => [...s.timestampsMs])).toEqual([[5, 40], [10, 20, 30], [7]]);
    const words = new Uint32Array(all[1].values.buffer, all[1].values.byteOffset, 6);
    expect([words[5], words[4]]).toEqual([0x7ff00000, 2]);
    expect([...all[1].values.subarray(0, 2)]).toEqual([1, 1]);
    expect(Object.is(all[0].values[1], -0)).toBe(true);
    expect(all[0].values[0]).toBe(3.5);
    expect(Number.isNaN(all[2].values[0])).toBe(true);
    // Decoded arrays are kept and counted: a second read hands out the same memory.
    expect(reader.byteSize).toBe(before + 16 * 6);
    expect(reader.select([], [], -Infinity, Infinity)[1].values.buffer).toBe(all[1].values.buffer);
    expect(reader.byteSize).toBe(before + 16 * 6);
    // Compaction's reads decode without keeping anything.
    const fresh = MetricSegmentReader.decode(enc.bytes);
    expect(fresh.allSeries().map((s) => [...s.timestampsMs])).toEqual([[5, 40], [10, 20, 30], [7]]);
    expect(fresh.byteSize).toBe(enc.bytes.byteLength);
  });

  it('decodes each distinct timestamp column once, for every series that has it', () => {
    const regular = f64(Array.from({ length: 100 }, (_, i) => 1_000 + 15_000 * i));
    const jittered = f64(Array.from({ length: 100 }, (_, i) => 1_000 + 15_000 * i + ((i * 7) % 5)));
    const target = (job: string, t: Float64Array, v: number): SeriesColumns => ({ labels: { __name__: 'm', job }, timestampsMs: t, values: Float64Array.from(t, (_, i) => 1000 * v + i) });
    const reader = MetricSegmentReader.decode(
      encodeMetricSegment([
        target('a', regular, 1),
        target('b', regular, 2),
        target('c', jittered, 3),
        target('d', jittered.slice(), 4),
        // The same start and interval with fewer samples encodes to the same stream: its length tells it apart.
        target('e', regular.subarray(0, 40), 5),
        target('f', regular.map((t) => t + 1), 6),
      ])!.bytes,
    );
    const before = reader.byteSize;
    const all = reader.select([], [], -Infinity, Infinity);
    expect(all.map((s) => s.labels.job)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(all.map((s) => [...s.timestampsMs])).toEqual([regular, regular, jittered, jittered, regular.subarray(0, 40), regular.map((t) => t + 1)].map((t) => [...t]));
    expect(all[1].timestampsMs).toBe(all[0].timestampsMs);
    expect(all[3].timestampsMs).toBe(all[2].timestampsMs);
    expect(new Set(all.map((s) => s.timestampsMs)).size).toBe(4);
    // Four timestamp columns and six value columns are held.
    expect(reader.byteSize - before).toBe(8 * (100 + 100 + 40 + 100) + 8 * (4 * 100 + 40 + 100));
    // A window cuts every series at its own samples, shared column or not.
    const from = regular[30];
    const to = regular[60];
    const windowed = reader.select([], [], from, to);
    for (const s of windowed) {
      const source = all.find((a) => a.labels.job === s.labels.job)!;
      const kept = [...source.timestampsMs.keys()].filter((i) => source.timestampsMs[i] >= from && source.timestampsMs[i] <= to);
      expect([...s.timestampsMs], s.labels.job).toEqual(kept.map((i) => source.timestampsMs[i]));
      expect([...s.values], s.labels.job).toEqual(kept.map((i) => source.values[i]));
    }
    expect(windowed.map((s) => s.labels.job)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(windowed.find((s) => s.labels.job === 'e')!.values).toHaveLength(10);
  });

  it('still reads format version 1 files, as views into the file bytes', () => {
    const enc = encodeMetricSegment(series, 1)!;
    expect(enc.formatVersion).toBe(1);
    expect(readSegmentFile(enc.bytes).version).toBe(1);
    const bytes = shared(enc.bytes);
    const reader = MetricSegmentReader.decode(bytes, enc.crc);
    const all = reader.select([], [], -Infinity, Infinity);
    expect(all.map((s) => s.labels)).toEqual([{ __name__: 'http_total', job: 'a' }, { __name__: 'up', job: 'b' }, { job: 'nameless' }]);
    const up = all[1];
    expect([...up.timestampsMs]).toEqual([10, 20, 30]);
    const words = new Uint32Array(up.values.buffer, up.values.byteOffset, 6);
    expect([words[5], words[4]]).toEqual([0x7ff00000, 2]);
    expect(Object.is(all[0].values[1], -0)).toBe(true);
    expect(Number.isNaN(all[2].values[0])).toBe(true);
    // Zero-copy: the samples live in the (shared) file buffer.
    expect(up.values.buffer).toBe(bytes.buffer);
    expect(up.timestampsMs.buffer).toBe(bytes.buffer);
  });

  it('selects by matchers and window, narrowing by metric name first', () => {
    const enc = encodeMetricSegment(series)!;
    const reader = MetricSegmentReader.decode(enc.bytes);
    const matchers = [{ name: '__name__', type: '=' as const, value: 'up' }];
    const got = reader.select(matchers, compileMatchers(matchers), 15, 30);
    expect(got.map((s) => [...s.timestampsMs])).toEqual([[20, 30]]);
    expect(reader.select(matchers, compileMatchers(matchers), 31, 100)).toEqual([]);
    const seen: string[] = [];
    const jobMatchers = [{ name: 'job', type: '=~' as const, value: 'a|nameless' }];
    reader.forEachLabelSet(jobMatchers, compileMatchers(jobMatchers), 0, 6, (l) => void seen.push(l.job));
    expect(seen).toEqual(['a']);
  });

  it('keeps its series table a plain Arrow file any Arrow reader can open', () => {
    const enc = encodeMetricSegment(series)!;
    const [seriesTable] = decodeSegmentFile(enc.bytes);
    const table = tableFromIPC(seriesTable);
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      'labels:Utf8',
      'first:Uint32',
      'count:Uint32',
      'minT:Float64',
      'maxT:Float64',
      'block:Uint32',
      'words:Uint32',
    ]);
    expect([...table.getChild('count')!.toArray()]).toEqual([2, 3, 1]);
  });

  it('was a pair of plain Arrow files in format version 1', () => {
    const enc = encodeMetricSegment(series, 1)!;
    const [seriesTable, samples] = decodeSegmentFile(enc.bytes).map((s) => tableFromIPC(s));
    expect(seriesTable.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['labels:Utf8', 'first:Uint32', 'count:Uint32', 'minT:Float64', 'maxT:Float64']);
    expect(samples.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['series:Uint32', 't:Float64', 'v:Float64']);
    expect([...samples.getChild('series')!.toArray()]).toEqual([0, 0, 1, 1, 1, 2]);
    expect(JSON.parse(seriesTable.getChild('labels')!.get(2) as string)).toEqual({ job: 'nameless' });
  });
});

describe('log segments', () => {
  function head(): LogHead {
    const h = new LogHead(new Set(['service_name']));
    h.append([
      { timestampNs: 30n, message: 'third ✓', level: 'error', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 10n, message: 'first', level: 'info', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 20n, message: 'second', level: 'info', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 20n, message: 'second, later', level: 'info', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 15n, message: 'other', level: '', tags: { service_name: 'web', level: 'shadowed' } },
      { timestampNs: 16n, message: 'no service', level: 'debug', tags: {} },
    ]);
    return h;
  }

  it.each([1, 2] as const)('answers like the head it was written from (format version %i)', (version) => {
    const h = head();
    const enc = encodeLogSegment(h.columns(), ['service_name'], version)!;
    expect(readSegmentFile(enc.bytes).version).toBe(version);
    expect(enc).toMatchObject({ rows: 6, streamCount: 3, minNs: 10n, maxNs: 30n, tagValues: { service_name: ['', 'api', 'web'] } });
    const reader = LogSegmentReader.decode(shared(enc.bytes), enc.crc);
    const queries = [
      [],
      [{ name: 'service_name', type: '=' as const, value: 'api' }],
      [{ name: 'level', type: '=' as const, value: 'shadowed' }],
      [{ name: 'user', type: '!=' as const, value: 'bob' }],
    ];
    const canon = (xs: Array<{ tags: object; timestampsNs: BigInt64Array; messages: string[] }>) =>
      xs.map((x) => ({ tags: JSON.stringify(x.tags), ts: [...x.timestampsNs], messages: x.messages })).sort((a, b) => (a.tags < b.tags ? -1 : 1));
    for (const q of queries) {
      for (const [min, max] of [[0n, 100n], [15n, 20n], [31n, 40n]] as const) {
        expect(canon(reader.select(compileMatchers(q), min, max))).toEqual(canon(h.select(q, min, max)));
        const fromSegment: string[] = [];
        const fromHead: string[] = [];
        reader.forEachTagSet(compileMatchers(q), min, max, (t) => void fromSegment.push(JSON.stringify(t)));
        h.forEachTagSet(q, min, max, (t) => void fromHead.push(JSON.stringify(t)));
        expect(fromSegment.sort()).toEqual(fromHead.sort());
      }
    }
  });

  it('compresses messages in blocks that inflate once, in time order, counted in the reader size', () => {
    const h = new LogHead(new Set(['service_name']));
    const n = 20_000;
    h.append(
      Array.from({ length: n }, (_, i) => ({
        timestampNs: BigInt(i),
        message: `{"level":"info","route":"/r${i % 5}","latency_ms":${(i * 7919) % 2000},"msg":"request handled ✓","trace":"${(i * 2654435761) % 4294967296}"}`,
        level: 'info',
        tags: { service_name: `s${i % 3}` },
      })),
    );
    const v1 = encodeLogSegment(h.columns(), ['service_name'], 1)!;
    const v2 = encodeLogSegment(h.columns(), ['service_name'])!;
    expect(v2.formatVersion).toBe(2);
    expect(v2.bytes.length).toBeLessThan(v1.bytes.length / 3);
    const reader = LogSegmentReader.decode(shared(v2.bytes), v2.crc);
    const old = LogSegmentReader.decode(v1.bytes, v1.crc);
    const matchers = compileMatchers([{ name: 'service_name', type: '=', value: 's1' }]);
    // A count reads no message, so nothing is inflated.
    reader.select(matchers, 0n, BigInt(n), { lines: false });
    expect(reader.byteSize).toBe(v2.bytes.length);
    for (const [min, max] of [[0n, BigInt(n)], [5000n, 5100n], [BigInt(n - 1), BigInt(n + 10)]] as const) {
      expect(reader.select(matchers, min, max)).toEqual(old.select(matchers, min, max));
    }
    const inflated = reader.byteSize - v2.bytes.length;
    expect(inflated).toBeGreaterThan(0);
    reader.select(matchers, 0n, BigInt(n));
    expect(reader.byteSize - v2.bytes.length).toBe(inflated);
    expect(reader.columns().messages).toEqual(old.columns().messages);
  });

  it('rejects a damaged message block as a format error', () => {
    const enc = encodeLogSegment(head().columns(), ['service_name'])!;
    const sections = readSegmentFile(enc.bytes).sections;
    const damaged = encodeSegmentFile([sections[0], sections[1], sections[2], sections[3].map((b) => b ^ 0x5a)], 2);
    const reader = LogSegmentReader.decode(damaged.bytes);
    // Lines are read when a stream's messages are (LogStreamData): reading them meets the damage.
    expect(() => reader.select([], 0n, 100n).map((s) => s.messages)).toThrow(SegmentFormatError);
  });

  it('sorts rows by time keeping arrival order on ties, with dictionary-encoded levels and attributes (format version 1)', () => {
    const enc = encodeLogSegment(head().columns(), ['service_name'], 1)!;
    const [, rows] = decodeSegmentFile(enc.bytes).map((s) => tableFromIPC(s));
    expect([...rows.getChild('ts')!.toArray()]).toEqual([10n, 15n, 16n, 20n, 20n, 30n]);
    expect(rows.getChild('message')!.toArray()).toEqual(['first', 'other', 'no service', 'second', 'second, later', 'third ✓']);
    expect(rows.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      'ts:Int64',
      'stream:Uint32',
      'level:Dictionary<Int32, Utf8>',
      'message:Utf8',
      'attributes:Dictionary<Int32, Utf8>',
    ]);
    expect(rows.getChild('attributes')!.data[0].dictionary!.toArray()).toEqual(['{"user":"bob"}', '{"level":"shadowed"}', '{}']);
  });

  it('records a tag with too many values as unknown, so it is never used to prune', () => {
    const h = new LogHead(new Set(['pod']));
    h.append(Array.from({ length: MAX_TAG_VALUES + 1 }, (_, i) => ({ timestampNs: BigInt(i), message: 'm', level: 'info', tags: { pod: `p${i}` } })));
    expect(encodeLogSegment(h.columns(), ['pod'])!.tagValues).toEqual({ pod: null });
  });
});

describe('blob and catalog stores', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores, lists, reads into shared memory, and removes blobs; refuses names that leave the directory', async () => {
    const store = new LocalBlobStore(path.join(dir, 'blobs'));
    await store.write('a.seg', Uint8Array.from([1, 2, 3]));
    await fs.writeFile(path.join(dir, 'blobs', 'b.seg.tmp'), 'half written');
    expect(await store.list()).toEqual(['a.seg']);
    expect(await fs.readdir(path.join(dir, 'blobs'))).toEqual(['a.seg']);
    const bytes = store.read('a.seg');
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(() => store.read('b.seg')).toThrow(BlobNotFoundError);
    await expect(store.write('../escape', Uint8Array.from([1]))).rejects.toThrow(/invalid blob name/);
    await store.remove('a.seg');
    await store.remove('a.seg');
    expect(await store.list()).toEqual([]);
  });

  it('hands out version 1 segment samples another thread can read without a copy', async () => {
    const store = new LocalBlobStore(path.join(dir, 'blobs'));
    const enc = encodeMetricSegment([{ labels: { __name__: 'x' }, timestampsMs: f64([1, 2]), values: f64([10, 20]) }], 1)!;
    await store.write('x.seg', enc.bytes);
    const [series] = MetricSegmentReader.decode(store.read('x.seg'), enc.crc).select([], [], -Infinity, Infinity);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<Float64Array>((resolve) => port2.once('message', resolve));
    port1.postMessage(series.values);
    const copy = await received;
    port1.close();
    port2.close();
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    // The same memory: a change on one side shows on the other.
    series.values[1] = 99;
    expect([...copy]).toEqual([10, 99]);
  });

  it('saves the catalog atomically and refuses a foreign or damaged one', async () => {
    const store = new FileCatalogStore(path.join(dir, 'catalog.json'));
    expect(await store.load()).toBeUndefined();
    const state = { ...emptyCatalog(), walCheckpoint: 7 };
    await store.save(state);
    expect(await store.load()).toEqual(state);
    expect(await fs.readdir(dir)).toEqual(['catalog.json']);
    await fs.writeFile(path.join(dir, 'catalog.json'), '{"hello": 1}');
    await expect(store.load()).rejects.toThrow(CatalogError);
    await fs.writeFile(path.join(dir, 'catalog.json'), JSON.stringify({ ...state, version: 99 }));
    await expect(store.load()).rejects.toThrow(/unsupported catalog version 99/);
  });
});
