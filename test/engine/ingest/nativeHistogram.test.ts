import { describe, expect, it } from 'vitest';
import { decodeNativeHistogram } from '../../../engine/ingest/nativeHistogram.js';
import { CounterResetHint } from '../../../engine/histogram/floatHistogram.js';
import { ProtoReader } from '../../../engine/ingest/protobuf.js';
import { pbEncode, WriteRequestV2 } from './protoTypes.js';

/** Histogram is the 2.0 message type; 1.0's has the same fields and numbers. */
const Histogram = WriteRequestV2.lookupType('Histogram');

function decode(message: Record<string, unknown>) {
  const bytes = pbEncode(Histogram, message);
  const r = new ProtoReader(bytes);
  return decodeNativeHistogram(r, bytes.length);
}

describe('decodeNativeHistogram', () => {
  it('turns an integer histogram\'s bucket deltas into absolute counts, with every field', () => {
    const { sample, problem } = decode({
      countInt: '12',
      sum: 18.4,
      schema: 1,
      zeroThreshold: 0.001,
      zeroCountInt: '2',
      negativeSpans: [{ offset: 0, length: 2 }],
      negativeDeltas: ['1', '1'],
      positiveSpans: [
        { offset: -2, length: 2 },
        { offset: 3, length: 1 },
      ],
      positiveDeltas: ['3', '-2', '1'],
      resetHint: 2,
      timestamp: '1700000000123',
      startTimestamp: '1699999000000',
    });
    expect(problem).toBeUndefined();
    expect(sample).toMatchObject({ isFloat: false, stale: false, timestampMs: 1700000000123, startTimestampMs: 1699999000000 });
    const histogram = sample.histogram;
    expect(histogram).toMatchObject({ count: 12, sum: 18.4, schema: 1, zeroThreshold: 0.001, zeroCount: 2, customValues: null, counterResetHint: CounterResetHint.NotCounterReset });
    // Spans become sparse bucket indexes: negative 0,1; positive -2,-1 then 3 after an offset of 3.
    expect([...histogram.negIndex]).toEqual([0, 1]);
    expect([...histogram.negCount]).toEqual([1, 2]);
    expect([...histogram.posIndex]).toEqual([-2, -1, 3]);
    expect([...histogram.posCount]).toEqual([3, 1, 2]);
  });

  it('keeps a float custom-bucket histogram (NHCB) with its bounds', () => {
    const { sample, problem } = decode({
      countFloat: 7.5,
      sum: 3,
      schema: -53,
      positiveSpans: [{ offset: 0, length: 3 }],
      positiveCounts: [1.5, 4, 2],
      customValues: [0.1, 0.5],
      resetHint: 3,
    });
    expect(problem).toBeUndefined();
    expect(sample.isFloat).toBe(true);
    const histogram = sample.histogram;
    expect(histogram).toMatchObject({ count: 7.5, schema: -53, counterResetHint: CounterResetHint.Gauge });
    expect([...histogram.posIndex]).toEqual([0, 1, 2]);
    expect([...histogram.posCount]).toEqual([1.5, 4, 2]);
    expect([...histogram.customValues!]).toEqual([0.1, 0.5]);
  });

  it('names what makes a histogram unusable without failing the body', () => {
    expect(decode({ countInt: '1', schema: 9 }).problem).toMatch(/schema 9/);
    expect(decode({ countInt: '1', positiveSpans: [{ offset: 0, length: 3 }], positiveDeltas: ['1'] }).problem).toMatch(/claim 3 buckets but 1 counts/);
    expect(decode({ countInt: '1', positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: ['1', '-2'] }).problem).toMatch(/count -1/);
    expect(decode({ countFloat: 1, schema: -53, positiveSpans: [{ offset: 0, length: 1 }], positiveCounts: [1], customValues: [2, 1] }).problem).toMatch(/do not increase/);
    expect(decode({ countInt: '1', positiveSpans: [{ offset: 0, length: 4294967295 }] }).problem).toMatch(/more than \d+ buckets/);
  });
});
