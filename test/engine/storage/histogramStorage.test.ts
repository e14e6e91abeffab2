import { describe, expect, it } from 'vitest';
import { CounterResetHint, type FloatHistogram } from '../../../engine/histogram/floatHistogram.js';
import { decodeHistogramBlock, encodeHistogramBlock } from '../../../engine/storage/histogramCodec.js';
import { MetricHead } from '../../../engine/storage/metricHead.js';
import { encodeMetricSegment, MetricSegmentReader } from '../../../engine/storage/metricSegment.js';
import { mergeSeriesRuns } from '../../../engine/storage/seriesMerge.js';
import { decodeWalEntry, encodeWalEntry } from '../../../engine/storage/walCodec.js';
import { packSeries, unpackSeries } from '../../../engine/query/packing.js';
import { SnapshotMetricReader } from '../../../engine/query/snapshotMetricReader.js';
import { bitsOf, isStale } from '../../../engine/storage/staleness.js';
import { SeededRandom } from '../../support/seededRandom.js';

/**
 * The histogram sample kind in storage: the block encoding round-trips every field bit for
 * bit, and a series mixing floats, histograms and staleness markers reads back the same from
 * the WAL codec, the head, its shared snapshot, a segment, a merge and a worker's packed result.
 */

function hist(partial: Partial<FloatHistogram> & { pos?: Array<[number, number]>; neg?: Array<[number, number]> }): FloatHistogram {
  const pos = partial.pos ?? [];
  const neg = partial.neg ?? [];
  return {
    schema: partial.schema ?? 0,
    zeroThreshold: partial.zeroThreshold ?? 2 ** -128,
    zeroCount: partial.zeroCount ?? 0,
    count: partial.count ?? pos.reduce((n, [, c]) => n + c, 0) + neg.reduce((n, [, c]) => n + c, 0) + (partial.zeroCount ?? 0),
    sum: partial.sum ?? 0,
    posIndex: Int32Array.from(pos.map(([i]) => i)),
    posCount: Float64Array.from(pos.map(([, c]) => c)),
    negIndex: Int32Array.from(neg.map(([i]) => i)),
    negCount: Float64Array.from(neg.map(([, c]) => c)),
    customValues: partial.customValues ?? null,
    counterResetHint: partial.counterResetHint ?? CounterResetHint.Unknown,
  };
}

/** plain turns a histogram into comparable plain data (typed arrays as arrays, -0 and NaN kept by toEqual's Object.is). */
function plain(h: FloatHistogram | undefined): unknown {
  if (h === undefined) return undefined;
  return { ...h, posIndex: [...h.posIndex], posCount: [...h.posCount], negIndex: [...h.negIndex], negCount: [...h.negCount], customValues: h.customValues && [...h.customValues] };
}

/** randomRun is a counter-like run: layouts that mostly repeat, integer and float counts, custom buckets, gaps. */
function randomRun(seed: number, n: number): (FloatHistogram | undefined)[] {
  const r = new SeededRandom(seed);
  const out: (FloatHistogram | undefined)[] = [];
  let counts = [3, 0, 7, 1];
  for (let k = 0; k < n; k++) {
    if (r.chance(0.1)) {
      out.push(undefined);
      continue;
    }
    counts = counts.map((c) => c + r.int(0, 5));
    if (r.chance(0.1)) counts.push(r.int(0, 3));
    const float = r.chance(0.3);
    const scale = float ? 0.1 + r.next() : 1;
    const custom = r.chance(0.15);
    out.push(
      hist({
        schema: custom ? -53 : r.chance(0.1) ? 3 : 1,
        zeroCount: custom ? 0 : r.int(0, 4),
        sum: r.next() * 1000 - 10,
        pos: counts.map((c, i) => [i * 2 - 3, c * scale]),
        neg: custom || r.chance(0.5) ? [] : [[1, r.int(1, 9) * scale]],
        customValues: custom ? Float64Array.from(counts.slice(1).map((_, i) => (i + 1) * 0.25)) : null,
        counterResetHint: r.int(0, 3) as CounterResetHint,
      }),
    );
  }
  return out;
}

describe('histogram blocks', () => {
  it('round-trip every field of integer, float and custom-bucket histograms among float slots', () => {
    for (const seed of [1, 2, 3, 4]) {
      const run = randomRun(seed, 200);
      const back = decodeHistogramBlock(encodeHistogramBlock(run), run.length);
      expect(back.map(plain)).toEqual(run.map(plain));
    }
  });

  it('keep special values bit for bit and cost about a byte per bucket for a steady integer counter', () => {
    // The last is an integer histogram whose count exceeds its buckets (NaN observations count but fill no bucket).
    const special = [hist({ sum: NaN, pos: [[0, 1]] }), hist({ sum: NaN, count: 5, zeroCount: 1, pos: [[0, 1]] }), hist({ sum: -0, zeroThreshold: 0, pos: [[-5, 0.5]] }), hist({ sum: Infinity, count: 2 ** 60, pos: [[2, 2 ** 60]] })];
    expect(decodeHistogramBlock(encodeHistogramBlock(special), 4).map(plain)).toEqual(special.map(plain));
    const steady = Array.from({ length: 100 }, (_, k) => hist({ sum: k * 12.5, pos: Array.from({ length: 20 }, (_, i) => [i, k * (i + 1)] as [number, number]) }));
    const bytes = encodeHistogramBlock(steady);
    expect(decodeHistogramBlock(bytes, 100).map(plain)).toEqual(steady.map(plain));
    expect(bytes.length / (100 * 20)).toBeLessThan(1.5);
  });

  it('refuse a corrupt block with a format error instead of reading past it', () => {
    const bytes = encodeHistogramBlock(randomRun(9, 20));
    expect(() => decodeHistogramBlock(bytes.subarray(0, bytes.length - 3), 20)).toThrow(/histogram block/);
    expect(() => decodeHistogramBlock(Uint8Array.of(1, 0, 200), 20)).toThrow(/histogram block/);
  });
});

describe('a series mixing floats, histograms and staleness markers', () => {
  const h1 = hist({ schema: 2, sum: 4, pos: [[1, 2], [2, 3]] });
  const h2 = hist({ schema: 2, sum: 9, pos: [[1, 4], [2, 5]] });
  const h3 = hist({ schema: -53, sum: 1.5, pos: [[0, 1.5]], customValues: Float64Array.of(0.5) });
  // The head gives h2 the hint a TSDB read gives: it follows h1 and no bucket shrank.
  const h2Stored = { ...h2, counterResetHint: CounterResetHint.NotCounterReset };
  const labels = { __name__: 'latency', job: 'api' };

  function head(): MetricHead {
    const head = new MetricHead(4);
    // A float, two histograms, a staleness marker, then a float, a late histogram written out of order.
    head.append({ labels, timestampsMs: Float64Array.of(1000, 2000, 3000), values: Float64Array.of(1.5, 0, 0), histograms: [undefined, h1, h2] });
    head.append({ labels, timestampsMs: Float64Array.of(4000, 5000), values: Float64Array.of(0, 7), stale: Uint8Array.of(1, 0) });
    head.append({ labels, timestampsMs: Float64Array.of(4500), values: Float64Array.of(0), histograms: [h3] });
    return head;
  }

  function check(s: { timestampsMs: Float64Array; values: Float64Array; histograms?: readonly (FloatHistogram | undefined)[] }): void {
    expect([...s.timestampsMs]).toEqual([1000, 2000, 3000, 4000, 4500, 5000]);
    expect(s.histograms?.map(plain)).toEqual([undefined, plain(h1), plain(h2Stored), undefined, plain(h3), undefined]);
    expect(s.values[0]).toBe(1.5);
    expect(isStale(bitsOf(s.values), 3)).toBe(true);
    expect(s.values[5]).toBe(7);
  }

  it('gives a histogram after a histogram the counter reset hint a TSDB read gives (a reset starts a chunk: unknown)', () => {
    const h = new MetricHead();
    const lower = hist({ schema: 2, sum: 1, pos: [[1, 1], [2, 1]] });
    h.append({ labels, timestampsMs: Float64Array.of(1, 2, 3), values: Float64Array.of(0, 0, 0), histograms: [h2, lower, h1] });
    const [s] = h.select([], 0, 10);
    expect(s.histograms?.map((x) => x?.counterResetHint)).toEqual([CounterResetHint.Unknown, CounterResetHint.Unknown, CounterResetHint.NotCounterReset]);
  });

  it('reads back the same from the head, its snapshot, a segment and a packed result', () => {
    const h = head();
    const [fromHead] = h.select([{ name: '__name__', type: '=', value: 'latency' }], 0, 10_000);
    check(fromHead);
    const [fromSnapshot] = new SnapshotMetricReader(h.snapshot()).select([{ name: 'job', type: '=', value: 'api' }], 0, 10_000);
    check(fromSnapshot);
    const segment = encodeMetricSegment(h.seriesViews())!;
    expect(segment.formatVersion).toBe(3);
    const reader = MetricSegmentReader.decode(segment.bytes, segment.crc);
    check(reader.select([], [], 0, 10_000)[0]);
    // A window inside the series cuts the histogram slots with the samples.
    const part = reader.select([], [], 2000, 4500)[0];
    expect(part.histograms?.map(plain)).toEqual([plain(h1), plain(h2Stored), undefined, plain(h3)]);
    check(unpackSeries(packSeries([fromHead]))[0]);
  });

  it('survives the WAL codec and merges with a newer source winning equal timestamps', () => {
    const [series] = head().allSeries();
    const entry = decodeWalEntry(encodeWalEntry({ kind: 'metrics', org: 'o', series: [{ ...series, labels }], metadata: [] }));
    if (entry.kind !== 'metrics') throw new Error('expected metrics');
    check(entry.series[0]);
    const newer = { labels, timestampsMs: Float64Array.of(2000, 6000), values: Float64Array.of(3, 0), histograms: [undefined, h1] };
    const merged = mergeSeriesRuns([series, newer]);
    expect([...merged.timestampsMs]).toEqual([1000, 2000, 3000, 4000, 4500, 5000, 6000]);
    expect(merged.histograms?.map(plain)).toEqual([undefined, undefined, plain(h2Stored), undefined, plain(h3), undefined, plain(h1)]);
    expect(merged.values[1]).toBe(3);
  });

  it('keeps float-only segments in version 2', () => {
    const enc = encodeMetricSegment([{ labels, timestampsMs: Float64Array.of(1, 2), values: Float64Array.of(1, 2) }])!;
    expect(enc.formatVersion).toBe(2);
    expect(MetricSegmentReader.decode(enc.bytes, enc.crc).select([], [], 0, 10)[0].histograms).toBeUndefined();
  });
});
