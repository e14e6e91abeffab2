import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareLabels } from '../../../engine/promql/eval/labelset.js';
import { packSeries, unpackSeries, VALUE_TEXT_MIN_POINTS } from '../../../engine/query/packing.js';
import { emptyPointColumns, KeyedSeries, pointColumnsOf, seriesKeyOf, sortSeriesByKey, withColumns } from '../../../engine/storage/keyedSeries.js';
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

  it('reads each series of an answer where it lies, its views made only when asked and equal to the series sent', () => {
    const sent: SeriesColumns[] = [
      { labels: { job: 'a' }, timestampsMs: Float64Array.of(1, 2, 3), values: Float64Array.of(0.5, NaN, 1e21) },
      { labels: { job: 'b', note: 'snow ☃' }, timestampsMs: Float64Array.of(2), values: Float64Array.of(-0) },
      { labels: { job: 'c' }, timestampsMs: new Float64Array(0), values: new Float64Array(0) },
      { labels: { job: 'd' }, timestampsMs: Float64Array.of(4, 5), values: Float64Array.of(7, 1 / 3) },
      // Enough points that the answer carries its text (VALUE_TEXT_MIN_POINTS).
      { labels: { job: 'e' }, timestampsMs: Float64Array.from({ length: VALUE_TEXT_MIN_POINTS }, (_, p) => p), values: Float64Array.from({ length: VALUE_TEXT_MIN_POINTS }, (_, p) => p / 7) },
    ];
    for (const options of [{}, { valueText: true }, { sampleText: true }]) {
      const packed = packSeries(sent, options);
      expect(packed.valueText !== undefined).toBe('valueText' in options);
      expect(packed.sampleText !== undefined).toBe('sampleText' in options);
      const got = unpackSeries(packed);
      const where = emptyPointColumns();
      got.forEach((s, i) => {
        const columns = pointColumnsOf(s, where);
        // In place: the answer's own columns, this series' stretch of them.
        expect(columns.timestampsMs).toBe(packed.timestampsMs);
        expect(Array.from(columns.timestampsMs.subarray(columns.from, columns.to))).toEqual(Array.from(sent[i].timestampsMs));
        expect(columns.text).toBe(packed.valueText);
        expect(Array.from(s.timestampsMs)).toEqual(Array.from(sent[i].timestampsMs));
        expect(Array.from(s.values)).toEqual(Array.from(sent[i].values));
        expect(s.timestampsMs).toBe(s.timestampsMs);
        if ('valueText' in options) {
          for (let p = 0; p < sent[i].values.length; p++) {
            const v = sent[i].values[p];
            const text = s.valueText!.source.slice(s.valueText!.at[p], s.valueText!.at[p + 1] - 1);
            expect(text).toBe(Number.isFinite(v) ? '' + v : '');
            expect(columns.text!.slice(columns.textAt![columns.from + p], columns.textAt![columns.from + p + 1] - 1)).toBe(text);
          }
        } else expect(s.valueText).toBeUndefined();
        if ('sampleText' in options) expect(s.sampleText!.at.length).toBe(sent[i].values.length + 1);
        else expect(s.sampleText).toBeUndefined();
      });
    }
  });

  it('reads a series whose text was replaced through its own views', () => {
    const [s] = unpackSeries(packSeries([{ labels: { job: 'a' }, timestampsMs: Float64Array.of(1, 2), values: Float64Array.of(3, 4) }], { valueText: true }));
    s.valueText = { source: '30,40,', at: Uint32Array.of(0, 3, 6) };
    const columns = pointColumnsOf(s, emptyPointColumns());
    expect(columns.from).toBe(0);
    expect(columns.to).toBe(2);
    expect(Array.from(columns.values)).toEqual([3, 4]);
    expect(columns.text).toBe('30,40,');
    expect(Array.from(columns.textAt!)).toEqual([0, 3, 6]);
  });
});
