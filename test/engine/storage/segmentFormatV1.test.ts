import { copyFile, readFile, rm } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_VERSION, type SegmentMeta } from '../../../engine/storage/catalog.js';
import { FileCatalogStore } from '../../../engine/storage/catalogStore.js';
import { MetricSegmentReader, encodeMetricSegment } from '../../../engine/storage/metricSegment.js';
import { readSegmentFile } from '../../../engine/storage/segmentFormat.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import { ALL_MS, openStorage, tempDir } from './segmentFixtures.js';

/**
 * fixtures/metricSegmentV1.seg was written by the format version 1 encoder before version 2
 * existed: four series (a staleness marker, -0, NaN, and a 100-sample counter with quarter
 * steps). A data directory holding such files must keep answering, and compaction must carry
 * them into the new format unchanged.
 */
const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'metricSegmentV1.seg');

function expectedSeries(): SeriesColumns[] {
  const stale = new Float64Array(1);
  new Uint32Array(stale.buffer).set([2, 0x7ff00000]);
  const up = Float64Array.from([1, 1, 0]);
  up.set(stale, 2);
  return [
    { labels: { __name__: 'counter', job: 'c' }, timestampsMs: Float64Array.from({ length: 100 }, (_, i) => 1_700_000_000_000 + 15_000 * i), values: Float64Array.from({ length: 100 }, (_, i) => 1000 + 0.25 * i * i) },
    { labels: { __name__: 'http_total', job: 'a' }, timestampsMs: Float64Array.from([5, 40]), values: Float64Array.from([3.5, -0]) },
    { labels: { __name__: 'up', job: 'b' }, timestampsMs: Float64Array.from([10, 20, 30]), values: up },
    { labels: { job: 'nameless' }, timestampsMs: Float64Array.from([7]), values: Float64Array.from([NaN]) },
  ];
}

/** dump renders series with every value's bits, so NaN payloads and -0 count. */
function dump(series: readonly SeriesColumns[]): unknown[] {
  return [...series]
    .sort((a, b) => (JSON.stringify(a.labels) < JSON.stringify(b.labels) ? -1 : 1))
    .map((s) => ({ labels: s.labels, t: [...s.timestampsMs], bits: [...new Uint32Array(s.values.slice().buffer)] }));
}

describe('metric segments written in format version 1', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('decode bit for bit, and the version 1 encoder still writes the very same bytes', async () => {
    const bytes = new Uint8Array(await readFile(FIXTURE));
    expect(readSegmentFile(bytes).version).toBe(1);
    const reader = MetricSegmentReader.decode(bytes);
    expect(dump(reader.select([], [], ...ALL_MS))).toEqual(dump(expectedSeries()));
    expect(Buffer.from(encodeMetricSegment(expectedSeries(), 1)!.bytes).equals(bytes)).toBe(true);
  });

  it('keep answering from an existing data directory and compact into version 2 with nothing lost', async () => {
    const bytes = new Uint8Array(await readFile(FIXTURE));
    await mkdir(path.join(dir, 'segments'), { recursive: true });
    const file = '000000000001.metrics.seg';
    await copyFile(FIXTURE, path.join(dir, 'segments', file));
    const meta: SegmentMeta = {
      id: 1,
      seq: 1,
      org: 'acme',
      signal: 'metrics',
      file,
      formatVersion: 1,
      crc: crc32(bytes.subarray(12)),
      bytes: bytes.length,
      rows: 106,
      minMs: 5,
      maxMs: 1_700_000_000_000 + 15_000 * 99,
      metricNames: ['', 'counter', 'http_total', 'up'],
      seriesCount: 4,
      createdMs: 0,
    };
    await new FileCatalogStore(path.join(dir, 'catalog.json')).save({ version: CATALOG_VERSION, walCheckpoint: 0, nextSegmentId: 2, segments: [meta], metricMetadata: {} });

    const { storage } = await openStorage(dir);
    try {
      expect(dump(storage.metrics('acme').select([], ...ALL_MS))).toEqual(dump(expectedSeries()));
      // Later samples of the counter land in a version 2 segment next to the old one.
      const later = Float64Array.from({ length: 20 }, (_, i) => 1_700_000_000_000 + 15_000 * (100 + i));
      await storage.appendMetrics('acme', [{ labels: { __name__: 'counter', job: 'c' }, timestampsMs: later, values: later.map((_, i) => 5000 + i) }]);
      const cut = await storage.cut();
      expect(cut.segments.map((s) => s.formatVersion)).toEqual([2]);
      const want = expectedSeries();
      want[0] = {
        labels: want[0].labels,
        timestampsMs: Float64Array.from([...want[0].timestampsMs, ...later]),
        values: Float64Array.from([...want[0].values, ...later.map((_, i) => 5000 + i)]),
      };
      expect(dump(storage.metrics('acme').select([], ...ALL_MS))).toEqual(dump(want));
      const { merged } = await storage.compact();
      expect(merged).toHaveLength(1);
      expect(merged[0].output.formatVersion).toBe(2);
      expect(merged[0].output.bytes).toBeLessThan(bytes.length);
      expect(storage.segments().map((s) => s.formatVersion)).toEqual([2]);
      expect(dump(storage.metrics('acme').select([], ...ALL_MS))).toEqual(dump(want));
    } finally {
      await storage.close();
    }
    // And after a restart, from the compacted file alone.
    const reopened = await openStorage(dir);
    try {
      expect(reopened.storage.segments()).toHaveLength(1);
    } finally {
      await reopened.storage.close();
    }
  });
});
