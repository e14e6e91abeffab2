import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runEncodeLogSegment, runEncodeMetricSegment, runSegmentTask, type SegmentTask } from '../../../engine/query/segmentTasks.js';
import { DEFAULT_INDEXED_TAGS, LogHead, type LogEntry } from '../../../engine/storage/logHead.js';
import { encodeLogSegment } from '../../../engine/storage/logSegment.js';
import { MetricHead, type MetricSeries } from '../../../engine/storage/metricHead.js';
import { encodeMetricSegment } from '../../../engine/storage/metricSegment.js';
import type { MergedSegment, SegmentEncoders } from '../../../engine/storage/storageOptions.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { openStorage, tempDir } from './segmentFixtures.js';

/**
 * Cuts may encode heads on another thread from what the heads share with workers: a metric
 * head's snapshot, a log head's cut input. The segment must be byte for byte what encoding the
 * head itself gives, and a storage whose encoders fail must still cut.
 */

const BASE_MS = 1_700_000_000_000;
const INDEXED = [...DEFAULT_INDEXED_TAGS];

/** scrape is one sample of each of `series` series at `round`, some stale, some late when `disorder`. */
function scrape(random: SeededRandom, round: number, series: number, disorder = false): MetricSeries[] {
  return Array.from({ length: series }, (_, i) => {
    const late = disorder && random.chance(0.2) ? random.int(1, 3) : 0;
    return {
      labels: { __name__: i % 3 === 0 ? 'up' : 'requests_total', job: `job${i % 4}`, instance: `i${i}` },
      timestampsMs: Float64Array.of(BASE_MS + (round - late) * 15_000),
      values: Float64Array.of(random.int(0, 1000) / 7),
      ...(random.chance(0.05) ? { stale: Uint8Array.of(1) } : {}),
    };
  });
}

/** lines are log lines over a few streams, levels and attributes, with multi-byte text, some out of order. */
function lines(random: SeededRandom, n: number, startNs: bigint): LogEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    timestampNs: startNs + BigInt(i * 1000 - (random.chance(0.1) ? 5000 : 0)),
    message: `line ${i} ${random.chance(0.2) ? 'ünïcödé ✓' : 'plain'} ${'x'.repeat(random.int(0, 40))}`,
    level: ['info', 'warn', 'error', ''][i % 4],
    tags: { service_name: `svc${i % 3}`, ...(i % 5 === 0 ? { trace_id: `t${random.int(0, 9)}`, empty: '' } : {}), ...(i % 7 === 0 ? { level: 'shadowed' } : {}) },
  }));
}

/** onThread runs a segment task as a worker would: the task and its answer cloned across. */
function onThread(task: SegmentTask): unknown {
  const { result, transfer } = runSegmentTask(structuredClone(task));
  return structuredClone(result, { transfer });
}

const encoders = (counts: { asked: number }, failing = false): SegmentEncoders => ({
  metrics: async (snapshot) => {
    counts.asked++;
    if (failing) throw new Error('pool closed');
    return onThread({ kind: 'encode-metric-segment', snapshot }) as ReturnType<typeof encodeMetricSegment>;
  },
  logs: async (input, indexedTags) => {
    counts.asked++;
    if (failing) throw new Error('pool closed');
    return onThread({ kind: 'encode-log-segment', input, indexedTags }) as ReturnType<typeof encodeLogSegment>;
  },
  merge: async (signal, segments) => {
    counts.asked++;
    if (failing) throw new Error('pool closed');
    return onThread({ kind: 'merge-segments', signal, segments }) as MergedSegment | undefined;
  },
});

describe('encoding frozen heads off the main thread', () => {
  it('gives a metric head the same segment from its snapshot, sealed chunks, late samples and staleness included', () => {
    for (const seed of [4, 5]) {
      const random = new SeededRandom(seed);
      const head = new MetricHead(64);
      for (let round = 0; round < 40; round++) for (const s of scrape(random, round, 12, round > 20)) head.append(s);
      const direct = encodeMetricSegment(head.seriesViews())!;
      const { result, transfer } = runEncodeMetricSegment(structuredClone({ kind: 'encode-metric-segment', snapshot: head.snapshot() } as const));
      expect(Buffer.from(result!.bytes).equals(Buffer.from(direct.bytes))).toBe(true);
      expect({ ...result, bytes: undefined }).toEqual({ ...direct, bytes: undefined });
      expect(transfer).toEqual([result!.bytes.buffer]);
    }
    expect(runEncodeMetricSegment({ kind: 'encode-metric-segment', snapshot: new MetricHead().snapshot() }).result).toBeUndefined();
  });

  it('gives a log head the same segment from its cut input, across sealed chunks and the tail', () => {
    const random = new SeededRandom(7);
    const head = new LogHead(new Set(INDEXED), { rows: 64, bytes: 4096 });
    head.append(lines(random, 300, 1_700_000_000_000_000_000n));
    // A snapshot taken mid-way seals chunks that the cut input then reuses.
    head.snapshot();
    head.append(lines(random, 250, 1_700_000_000_500_000_000n));
    const direct = encodeLogSegment(head.columns(), INDEXED)!;
    const { result } = runEncodeLogSegment(structuredClone({ kind: 'encode-log-segment', input: head.cutInput(), indexedTags: INDEXED } as const));
    expect(Buffer.from(result!.bytes).equals(Buffer.from(direct.bytes))).toBe(true);
    expect({ ...result, bytes: undefined }).toEqual({ ...direct, bytes: undefined });
    expect(runEncodeLogSegment({ kind: 'encode-log-segment', input: new LogHead().cutInput(), indexedTags: INDEXED }).result).toBeUndefined();
  });

  it('is what a cut stores with encoders, and a cut whose encoders fail encodes on its own thread', async () => {
    for (const failing of [false, true]) {
      const dir = await tempDir();
      const { storage, events } = await openStorage(dir);
      const counts = { asked: 0 };
      storage.encodeSegmentsWith(encoders(counts, failing));
      const random = new SeededRandom(9);
      for (let round = 0; round < 10; round++) await storage.appendMetrics('o', scrape(random, round, 6));
      await storage.appendLogs('o', lines(random, 200, BigInt(BASE_MS) * 1_000_000n));
      // A segment lists series by label set, the head in arrival order.
      const metrics = () => storage.metrics('o').select([], -Infinity, Infinity).map((s) => JSON.stringify([s.labels, [...s.timestampsMs], [...new Uint32Array(s.values.buffer, s.values.byteOffset, 2 * s.values.length)]])).sort();
      const logs = () => storage.logs('o').select([], 0n, 2n ** 62n).flatMap((s) => Array.from(s.timestampsNs, (t, i) => JSON.stringify([s.tags, String(t), s.messages[i]]))).sort();
      const before = { metrics: metrics(), logs: logs() };
      const cut = await storage.cut();
      expect(counts.asked).toBe(2);
      expect(cut.segments.map((s) => s.signal).sort()).toEqual(['logs', 'metrics']);
      expect({ metrics: metrics(), logs: logs() }).toEqual(before);
      expect(before.logs).toHaveLength(200);
      expect(events.filter((e) => e.message.includes('encoding a segment off the main thread failed'))).toHaveLength(failing ? 2 : 0);
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('compacts into the same segments with a merger, and merges here when the merger fails', async () => {
    const compacted: string[][] = [];
    for (const mode of ['here', 'merger', 'failing'] as const) {
      const dir = await tempDir();
      const { storage, events } = await openStorage(dir, { segmentTargetBytes: 1 << 30 });
      const counts = { asked: 0 };
      if (mode !== 'here') storage.encodeSegmentsWith(encoders(counts, mode === 'failing'));
      const random = new SeededRandom(11);
      for (let part = 0; part < 3; part++) {
        for (let round = 0; round < 5; round++) await storage.appendMetrics('o', scrape(random, part * 5 + round, 6));
        await storage.appendLogs('o', lines(random, 100, BigInt(BASE_MS + part * 60_000) * 1_000_000n));
        await storage.cut();
      }
      const asked = counts.asked;
      const result = await storage.compact();
      expect(result.merged.map((m) => m.inputs.length)).toEqual([3, 3]);
      expect(counts.asked - asked).toBe(mode === 'here' ? 0 : 2);
      expect(events.filter((e) => e.message.includes('merging segments off the main thread failed'))).toHaveLength(mode === 'failing' ? 2 : 0);
      compacted.push(storage.segments().map((s) => `${s.signal} ${s.rows} ${s.bytes} ${s.crc}`));
      expect(storage.metrics('o').select([], -Infinity, Infinity)).toHaveLength(6);
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
    expect(compacted[1]).toEqual(compacted[0]);
    expect(compacted[2]).toEqual(compacted[0]);
  });
});
