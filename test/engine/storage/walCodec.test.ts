import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { seriesKey, type MetricSeries } from '../../../engine/storage/metricHead.js';
import { bitsOf, isStale, STALE_HI, STALE_LO } from '../../../engine/storage/staleness.js';
import { decodeWalEntry, encodeWalEntry } from '../../../engine/storage/walCodec.js';

/**
 * The write-ahead log's metrics records: written column-wise with series by key, read back to
 * the same series (staleness bits, histograms, awkward label text), from shared or separate
 * buffers; records of the earlier row-wise layout still replay.
 */

function staleValues(values: number[], staleAt: number): Float64Array {
  const out = Float64Array.from(values);
  const words = new Uint32Array(out.buffer);
  words[2 * staleAt] = STALE_LO;
  words[2 * staleAt + 1] = STALE_HI;
  return out;
}

function decodeMetrics(bytes: Uint8Array): MetricSeries[] {
  const entry = decodeWalEntry(bytes);
  if (entry.kind !== 'metrics') throw new Error('expected metrics');
  return entry.series;
}

describe('WAL metrics records', () => {
  it('round-trips series from one shared buffer and from separate ones', () => {
    const shared = new Float64Array(10);
    shared.set([1, 2, 3, 4, 5, 10, 20, 30, 40, 50]);
    const series: MetricSeries[] = [
      { labels: { __name__: 'a', job: 'x' }, timestampsMs: shared.subarray(0, 3), values: staleValues([7, 8, 9], 2), stale: Uint8Array.of(0, 0, 1) },
      { labels: { job: 'y\u0000z', __name__: 'b', empty: '' }, timestampsMs: shared.subarray(3, 5), values: Float64Array.of(-0, NaN) },
      { labels: { __name__: 'c', 'odd\u0001name': 'v\u0002' }, timestampsMs: Float64Array.of(100), values: Float64Array.of(Infinity) },
      { labels: { __name__: 'none' }, timestampsMs: new Float64Array(0), values: new Float64Array(0) },
    ];
    const back = decodeMetrics(encodeWalEntry({ kind: 'metrics', org: 'o', series, metadata: [{ name: 'a', type: 'counter', unit: '', help: 'h' }] }));
    expect(back).toHaveLength(4);
    expect(back.map((s) => ({ ...s.labels }))).toEqual([
      { __name__: 'a', job: 'x' },
      { __name__: 'b', job: 'y\u0000z' },
      { __name__: 'c', 'odd\u0001name': 'v\u0002' },
      { __name__: 'none' },
    ]);
    back.forEach((s, i) => expect(s.key).toBe(seriesKey(series[i].labels)));
    expect([...back[0].timestampsMs]).toEqual([1, 2, 3]);
    expect([...back[1].timestampsMs]).toEqual([4, 5]);
    expect([...back[2].timestampsMs]).toEqual([100]);
    expect(Object.is(back[1].values[0], -0)).toBe(true);
    expect(back[1].values[1]).toBeNaN();
    expect(back[2].values[0]).toBe(Infinity);
    expect([...back[0].stale!]).toEqual([0, 0, 1]);
    expect(isStale(bitsOf(back[0].values), 2)).toBe(true);
    expect(back[1].stale).toBeUndefined();
  });

  it('replays records of the row-wise layout', () => {
    const packr = new Packr({ useRecords: false, moreTypes: false });
    const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    const old = packr.pack({
      k: 'm',
      o: 'o',
      s: [{ l: { __name__: 'up', job: 'api' }, t: bytes(Float64Array.of(1, 2)), v: bytes(Float64Array.of(1, 0)), x: bytes(Uint8Array.of(0, 1)) }],
      d: [],
    });
    const [series] = decodeMetrics(old);
    expect(series.labels).toEqual({ __name__: 'up', job: 'api' });
    expect([...series.timestampsMs]).toEqual([1, 2]);
    expect([...series.stale!]).toEqual([0, 1]);
  });
});
