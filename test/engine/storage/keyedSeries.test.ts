import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareLabels } from '../../../engine/promql/eval/labelset.js';
import { packSeries, unpackSeries } from '../../../engine/query/packing.js';
import { KeyedSeries, seriesKeyOf, sortSeriesByKey, withColumns } from '../../../engine/storage/keyedSeries.js';
import { inNameOrder, labelsFromKey, labelsKey, type Labels } from '../../../engine/storage/labels.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';

/** Names and values drawn from characters that matter to keys: their separators and escape, quotes, non-ASCII. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'z', '\u0000', '\u0001', '\u0002', '\u0003', '"', '☃', '😀', '\ud800'), maxLength: 4 });
const labelSet = fc.dictionary(text, text.filter((v) => v !== ''), { maxKeys: 4 }).map((l) => inNameOrder(l));

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('series keyed by their label sets', () => {
  it('orders keys as labels.Compare orders label sets, and reads every key back to its labels', () => {
    fc.assert(
      fc.property(labelSet, labelSet, (a, b) => {
        const ka = labelsKey(a);
        const kb = labelsKey(b);
        expect(sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(sign(compareLabels(a, b)));
        expect(labelsFromKey(ka)).toEqual(a);
      }),
      { numRuns: 3_000 },
    );
  });

  it('crosses threads as keys: labels made only when read, equal to the sent ones with names in order', () => {
    const sent: SeriesColumns[] = [
      { labels: { __name__: 'up', job: 'api' }, timestampsMs: Float64Array.of(1, 2), values: Float64Array.of(1, 0) },
      { labels: { zone: 'b', code: '500', note: 'snow ☃ "q"\n' }, timestampsMs: Float64Array.of(3), values: Float64Array.of(7) },
      { labels: {}, timestampsMs: Float64Array.of(4), values: Float64Array.of(2) },
    ];
    const got = unpackSeries(packSeries(sent));
    expect(got.map((s) => s.key)).toEqual(sent.map(seriesKeyOf));
    expect(got.every((s) => s instanceof KeyedSeries && s.labelsIfRead() === undefined)).toBe(true);
    got.forEach((s, i) => {
      expect(s.labels).toEqual(inNameOrder(sent[i].labels));
      expect(Object.keys(s.labels)).toEqual(Object.keys(sent[i].labels).sort());
      expect(Array.from(s.values)).toEqual(Array.from(sent[i].values));
    });
    expect(got[1].labelsIfRead()).toBe(got[1].labels);
  });

  it('keeps key and labels through withColumns, not the text of the old points', () => {
    const [s] = unpackSeries(packSeries([{ labels: { a: 'x' }, timestampsMs: new Float64Array(5000), values: new Float64Array(5000) }], { valueText: true, sampleText: true }));
    expect(s.valueText).toBeDefined();
    expect(s.labelsText).toBeDefined();
    const copy = withColumns(s, Float64Array.of(9), Float64Array.of(1));
    expect(copy).toBeInstanceOf(KeyedSeries);
    expect(seriesKeyOf(copy)).toBe(s.key);
    expect(copy.labels).toEqual({ a: 'x' });
    expect(copy.valueText).toBeUndefined();
    expect(copy.sampleText).toBeUndefined();
    expect(copy.labelsText).toBeUndefined();
    const plain = withColumns({ labels: { b: 'y' }, timestampsMs: new Float64Array(0), values: new Float64Array(0) }, Float64Array.of(1), Float64Array.of(2));
    expect(plain).toEqual({ labels: { b: 'y' }, timestampsMs: Float64Array.of(1), values: Float64Array.of(2) });
  });

  it('sorts workers’ series and plain ones together in labels.Compare order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(labelSet, { selector: (l) => labelsKey(l), maxLength: 30 }), fc.boolean(), (sets, keyedFirst) => {
        const series = sets.map((labels): SeriesColumns => ({ labels, timestampsMs: Float64Array.of(0), values: Float64Array.of(0) }));
        const half = keyedFirst ? Math.ceil(series.length / 2) : series.length;
        const mixed = [...unpackSeries(packSeries(series.slice(0, half))), ...series.slice(half)];
        const sorted = sortSeriesByKey(mixed).map((s) => s.labels as Labels);
        for (let i = 1; i < sorted.length; i++) expect(compareLabels(sorted[i - 1], sorted[i])).toBeLessThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
