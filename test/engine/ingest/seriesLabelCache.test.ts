import { describe, expect, it } from 'vitest';
import { decodeWriteRequest, SeriesLabelCache } from '../../../engine/ingest/index.js';
import type { RemoteWriteResult } from '../../../engine/ingest/index.js';
import { seriesKey } from '../../../engine/storage/metricHead.js';
import { pbEncode, WriteRequest } from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const T = NOW_MS - 30_000;
const label = (name: string, value: string) => ({ name, value });

/** request encodes series given as [labels, first sample value]. */
function request(series: [{ name: string; value: string }[], number][]): Uint8Array {
  return pbEncode(WriteRequest, {
    timeseries: series.map(([labels, value]) => ({ labels, samples: [{ value, timestamp: String(T) }, { value: value + 1, timestamp: String(T + 15_000) }] })),
  });
}

/** plain is what a result says, without the objects' identity. */
function plain(result: RemoteWriteResult): unknown {
  return {
    records: result.records.map((r) => ({ labels: { ...r.labels }, key: r.key, t: [...r.timestampsMs], v: [...r.values] })),
    rejected: result.rejected,
    errors: result.errors,
  };
}

const SERIES: [{ name: string; value: string }[], number][] = [
  [[label('__name__', 'up'), label('job', 'api'), label('instance', 'a:9090')], 1],
  // Unsorted, with an empty value that is dropped.
  [[label('zone', 'eu'), label('__name__', 'up'), label('empty', ''), label('job', 'db')], 2],
  // Invalid: the same name twice.
  [[label('__name__', 'up'), label('job', 'x'), label('job', 'y')], 3],
];

describe('series label cache', () => {
  it('decodes a repeated request to the same records as without the cache, reusing frozen labels', () => {
    const body = request(SERIES);
    const cache = new SeriesLabelCache();
    const uncached = decodeWriteRequest(body, { nowMs: NOW_MS });
    const first = decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache });
    const second = decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache });
    expect(plain(first)).toEqual(plain(uncached));
    expect(plain(second)).toEqual(plain(uncached));
    expect(second.rejected).toBe(2);
    expect(second.errors[0]).toContain('duplicate label name');
    // Two valid series remembered; the invalid one is decoded (and refused) every time.
    expect(cache.size).toBe(2);
    for (let i = 0; i < 2; i++) {
      expect(second.records[i].labels).toBe(first.records[i].labels);
      expect(Object.isFrozen(second.records[i].labels)).toBe(true);
      expect(second.records[i].key).toBe(seriesKey(second.records[i].labels));
    }
    expect(second.records[1].labels).toEqual({ __name__: 'up', job: 'db', zone: 'eu' });
  });

  it('checks cached labels again when the limits change', () => {
    const body = request([SERIES[0]]);
    const cache = new SeriesLabelCache();
    expect(decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache }).records).toHaveLength(1);
    const strict = decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache, limits: { maxLabelValueLength: 4 } });
    expect(strict.records).toHaveLength(0);
    expect(strict.discarded).toEqual({ label_value_too_long: 2 });
    expect(decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache }).records).toHaveLength(1);
  });

  it('reads a label sent after the samples as part of the series, not as a cached one', () => {
    const opening = [label('__name__', 'up'), label('job', 'api')];
    const cache = new SeriesLabelCache();
    const plainBody = request([[opening, 1]]);
    decodeWriteRequest(plainBody, { nowMs: NOW_MS, labelCache: cache });
    expect(cache.size).toBe(1);
    // The same opening labels, then a sample, then one more label: a different series.
    const late = writeRequest([...opening.map(labelField), sampleField(5, T), labelField(label('zone', 'eu'))]);
    for (let round = 0; round < 2; round++) {
      const result = decodeWriteRequest(late, { nowMs: NOW_MS, labelCache: cache });
      expect(result.records.map((r) => ({ ...r.labels }))).toEqual([{ __name__: 'up', job: 'api', zone: 'eu' }]);
      expect(result.records[0].key).toBe(seriesKey({ __name__: 'up', job: 'api', zone: 'eu' }));
    }
    // A late duplicate of a cached label is still refused.
    const duplicate = writeRequest([...opening.map(labelField), sampleField(5, T), labelField(label('job', 'other'))]);
    expect(decodeWriteRequest(duplicate, { nowMs: NOW_MS, labelCache: cache }).errors[0]).toContain('duplicate label name "job"');
    expect(decodeWriteRequest(plainBody, { nowMs: NOW_MS, labelCache: cache }).records[0].labels).toEqual({ __name__: 'up', job: 'api' });
  });

  it('keeps at most two generations of entries', () => {
    const cache = new SeriesLabelCache(4);
    const many = Array.from({ length: 20 }, (_, i): [{ name: string; value: string }[], number] => [[label('__name__', 'm'), label('i', String(i))], i]);
    const body = request(many);
    for (let round = 0; round < 3; round++) {
      const result = decodeWriteRequest(body, { nowMs: NOW_MS, labelCache: cache });
      expect(result.records.map((r) => r.labels.i)).toEqual(many.map((_, i) => String(i)));
      expect(cache.size).toBeLessThanOrEqual(8);
    }
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

function lengthDelimited(field: number, body: number[]): number[] {
  return [(field << 3) | 2, ...varint(body.length), ...body];
}

function text(s: string): number[] {
  return [...new TextEncoder().encode(s)];
}

function labelField(l: { name: string; value: string }): number[] {
  return lengthDelimited(1, [...lengthDelimited(1, text(l.name)), ...lengthDelimited(2, text(l.value))]);
}

function sampleField(value: number, timestampMs: number): number[] {
  const bits = [...new Uint8Array(new Float64Array([value]).buffer)];
  return lengthDelimited(2, [(1 << 3) | 1, ...bits, 2 << 3, ...varint(timestampMs)]);
}

/** writeRequest is a WriteRequest of one TimeSeries with these fields, in this order. */
function writeRequest(seriesFields: number[][]): Uint8Array {
  return new Uint8Array(lengthDelimited(1, seriesFields.flat()));
}
