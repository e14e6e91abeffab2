import { describe, expect, it } from 'vitest';
import { labelsJson, MemoryBudget, packSeries, seriesKeyOf, unpackSeries, VALUE_TEXT_MIN_POINTS, valueTextAt, type ByteText, type Labels, type SeriesColumns } from '../../engine/index.js';
import { chunkText, type FramedEvents } from '../../src/http/sse.js';
import { matrixData, renderMatrix, renderSample, renderVector, sortByLabelSets, successJson } from '../../src/prometheus/render.js';
import { SeriesJoiner } from '../../src/query/collect.js';
import { plainSeries, sliceSeries } from '../../src/query/cache/seriesPieces.js';
import { CompactSeriesEncoder } from '../../src/query/compactEvents.js';
import { SeriesRenderer } from '../../src/query/events.js';
import { SeededRandom } from '../support/seededRandom.js';

/**
 * Workers may send the text of their values with an answer (PackedSeries.valueText) so the
 * thread that writes results slices text instead of formatting numbers. Whatever path a point
 * takes, the bytes a client receives must be the same.
 */

const AWKWARD_VALUES = [0, -0, 1, -1, 0.1, 1 / 3, 1e21, 1e-7, -1e-300, 5e-324, Number.MAX_VALUE, 2 ** 53 + 2, NaN, Infinity, -Infinity];

/** answer builds `count` series on a shared 15 s grid (some shifted or cut short), `nonFinite` of the values awkward ones. */
function answer(rng: SeededRandom, count: number, points: number, awkward: number): SeriesColumns[] {
  return Array.from({ length: count }, (_, i) => {
    const shifted = i % 7 === 3;
    const n = i % 5 === 4 ? Math.max(1, Math.floor(points / 2)) : points;
    const timestampsMs = new Float64Array(n);
    const values = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      timestampsMs[p] = 1_700_000_000_000 + (shifted ? 15_000 : 0) + p * 15_000;
      values[p] = rng.next() < awkward ? AWKWARD_VALUES[Math.floor(rng.next() * AWKWARD_VALUES.length)] : (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 30 - 15);
    }
    const labels: Labels = { __name__: 'm', code: String(200 + (i % 4) * 100), series: String(i), note: i % 2 === 0 ? 'q"uote\n☃' : 'plain' };
    return { labels, timestampsMs, values };
  });
}

/** throughWorker is an answer as a worker sends it and the writing thread reads it back. */
function throughWorker(series: SeriesColumns[], valueText: boolean): SeriesColumns[] {
  return unpackSeries(packSeries(series, { valueText }));
}

function joined(batches: Iterable<FramedEvents>): string {
  let raw = '';
  for (const b of batches) raw += chunkText(b.framed);
  return raw;
}

describe('values sent as text by the worker', () => {
  it('gives each finite value the text a number joined to a string gives, and none to the others', () => {
    const series = answer(new SeededRandom(3), 40, 241, 0.3);
    const read = throughWorker(series, true);
    let checked = 0;
    read.forEach((s, i) => {
      expect(s.valueText).toBeDefined();
      for (let p = 0; p < s.values.length; p++) {
        const v = series[i].values[p];
        expect(valueTextAt(s.valueText!, p)).toBe(Number.isFinite(v) ? '' + v : '');
        checked++;
      }
    });
    expect(checked).toBeGreaterThanOrEqual(VALUE_TEXT_MIN_POINTS);
  });

  it('is left out of small answers and of answers that did not ask', () => {
    const small = answer(new SeededRandom(4), 2, 100, 0);
    expect(throughWorker(small, true).every((s) => s.valueText === undefined)).toBe(true);
    const big = answer(new SeededRandom(5), 40, 241, 0);
    expect(throughWorker(big, false).every((s) => s.valueText === undefined)).toBe(true);
  });

  it('leaves the default events byte for byte as formatting every number does', () => {
    const rng = new SeededRandom(7);
    const withText = new SeriesRenderer();
    const without = new SeriesRenderer();
    let a = '';
    let b = '';
    for (let slice = 0; slice < 3; slice++) {
      const series = answer(rng, 50, 200, 0.2);
      const sent = throughWorker(series, true);
      expect(sent[0].valueText).toBeDefined();
      a += joined(withText.pointFrames(sent));
      b += joined(without.pointFrames(throughWorker(series, false)));
    }
    expect(a.length).toBeGreaterThan(100_000);
    expect(a).toBe(b);
  });

  it('leaves the compact events byte for byte as formatting every number does: whole series, series with gaps, long series', () => {
    const rng = new SeededRandom(9);
    const withText = new CompactSeriesEncoder();
    const without = new CompactSeriesEncoder();
    let a = '';
    let b = '';
    // All finite (one event per series from the worker's text), some non-finite (point by
    // point), and series long enough to be cut into several events.
    for (const [count, points, awkward] of [
      [60, 241, 0],
      [60, 241, 0.05],
      [4, 6_000, 0],
    ] as const) {
      const series = answer(rng, count, points, awkward);
      a += joined(withText.frames(throughWorker(series, true)));
      b += joined(without.frames(throughWorker(series, false)));
    }
    expect(a.split('"type":"points"').length).toBeGreaterThan(120);
    expect(a).toBe(b);
  });

  it('is not what the results cache keeps, and stays aligned when the cache cuts a series', () => {
    const sent = throughWorker(answer(new SeededRandom(11), 30, 241, 0.1), true);
    expect(plainSeries(sent)).toBe(true);
    const from = sent[0].timestampsMs[50];
    const to = sent[0].timestampsMs[120];
    const cut = sliceSeries(sent, from, to);
    cut.forEach((s, i) => {
      const whole = sent.find((w) => seriesKeyOf(w) === seriesKeyOf(s))!;
      const offset = whole.timestampsMs.indexOf(s.timestampsMs[0]);
      expect(i >= 0 && offset >= 0).toBe(true);
      for (let p = 0; p < s.values.length; p++) expect(valueTextAt(s.valueText!, p)).toBe(valueTextAt(whole.valueText!, offset + p));
    });
  });
});

/** sampleAt is point p's pair in a worker's rendering. */
function sampleAt(text: ByteText, p: number): string {
  return Buffer.from(text.bytes.buffer, text.bytes.byteOffset + text.at[p], text.at[p + 1] - 1 - text.at[p]).toString('latin1');
}

/** throughWorkerAsSamples is an answer whose worker rendered every point as the Prometheus API writes it. */
function throughWorkerAsSamples(series: SeriesColumns[]): SeriesColumns[] {
  return unpackSeries(packSeries(series, { sampleText: true }));
}

describe('points rendered for the Prometheus API by the worker', () => {
  it('gives every point, NaN and infinities included, the pair the API renders for it', () => {
    const series = answer(new SeededRandom(13), 40, 241, 0.3);
    const read = throughWorkerAsSamples(series);
    let checked = 0;
    read.forEach((s, i) => {
      expect(s.sampleText).toBeDefined();
      for (let p = 0; p < s.values.length; p++) {
        expect(sampleAt(s.sampleText!, p)).toBe(renderSample(series[i].timestampsMs[p], series[i].values[p]));
        checked++;
      }
    });
    expect(checked).toBeGreaterThanOrEqual(VALUE_TEXT_MIN_POINTS);
    expect(throughWorkerAsSamples(answer(new SeededRandom(14), 2, 100, 0)).every((s) => s.sampleText === undefined)).toBe(true);
  });

  it('leaves a matrix byte for byte as rendering every point does, whole and joined from slices', () => {
    const rng = new SeededRandom(15);
    const slices = [answer(rng, 50, 120, 0.1), answer(rng, 50, 121, 0.1)];
    // The second slice's points follow the first's.
    for (const s of slices[1]) for (let p = 0; p < s.timestampsMs.length; p++) s.timestampsMs[p] += 120 * 15_000;
    const plain = new SeriesJoiner(1_000, new MemoryBudget(Infinity));
    const rendered = new SeriesJoiner(1_000, new MemoryBudget(Infinity));
    for (const slice of slices) {
      plain.add(unpackSeries(packSeries(slice)));
      rendered.add(throughWorkerAsSamples(slice));
    }
    const joined = rendered.result();
    expect(joined.every((s) => s.sampleText !== undefined)).toBe(true);
    const matrix = renderMatrix(joined);
    expect(matrix.length).toBeGreaterThan(200_000);
    expect(matrix).toBe(renderMatrix(plain.result()));
    expect(renderMatrix(throughWorkerAsSamples(slices[0]))).toBe(renderMatrix(slices[0]));
    // As the API sends it: the workers' bytes copied into one buffer with the envelope.
    const data = matrixData(joined);
    const body = successJson(data, ['a warning']);
    expect(body.toString()).toBe(`{"status":"success","data":${matrix},"warnings":["a warning"]}`);
    // Sized once: the estimate covers the body.
    expect(data.bytes).toBeGreaterThanOrEqual(matrix.length);
  });

  it('leaves an instant vector byte for byte as rendering every point does', () => {
    const atMs = 1_700_000_000_000;
    const instant = answer(new SeededRandom(17), 5_000, 1, 0.2).map((s) => ({ ...s, timestampsMs: Float64Array.of(atMs) }));
    const sent = throughWorkerAsSamples(instant);
    expect(sent.every((s) => s.sampleText !== undefined)).toBe(true);
    const render = (series: SeriesColumns[]) => renderVector(series, atMs);
    const vector = render(sent);
    expect(vector).toBe(render(instant));
    const parsed = JSON.parse(vector) as { resultType: string; result: Array<{ metric: Labels; value: [number, string] }> };
    expect(parsed.resultType).toBe('vector');
    expect(parsed.result).toHaveLength(5_000);
    expect(parsed.result[7]).toEqual({ metric: instant[7].labels, value: JSON.parse(renderSample(atMs, instant[7].values[0])) });
  });

  it('writes the workers’ JSON of each label set as the labels render, escapes and any name order included', () => {
    const atMs = 1_700_000_000_000;
    const awkward: Labels[] = [
      { zone: 'a', __name__: 'm"q', job: 'back\\slash' },
      { note: 'line\nbreak\u0001', snow: '☃', face: '😀' },
      { lone: '\ud800x', ctrl: '\u0000\u0002' },
      {},
      { 'weird "name"': 'v', le: '+Inf' },
    ];
    const series = awkward.map((labels, i): SeriesColumns => ({ labels, timestampsMs: Float64Array.of(atMs), values: Float64Array.of(i / 3) }));
    const sent = throughWorkerAsSamples(series);
    expect(sent.every((s) => s.labelsText !== undefined)).toBe(true);
    const vector = renderVector(sent, atMs);
    expect(vector).toBe(renderVector(series, atMs));
    const parsed = JSON.parse(vector) as { result: Array<{ metric: Labels }> };
    expect(parsed.result.map((r) => r.metric)).toEqual(awkward);
    parsed.result.forEach((r, i) => expect(Object.keys(r.metric)).toEqual(Object.keys(awkward[i]).sort()));
    expect(renderMatrix(sent)).toBe(renderMatrix(series));
  });

  it('renders label sets as JSON with their names sorted, escapes included', () => {
    const awkward: Labels = { zone: 'a', __name__: 'm"q', job: 'back\\slash', note: 'line\nbreak\u0001', snow: '☃', face: '😀', lone: '\ud800x', empty: '' };
    const sortedNames = Object.keys(awkward).sort();
    const expected = JSON.stringify(Object.fromEntries(sortedNames.map((n) => [n, awkward[n]])));
    expect(labelsJson(awkward)).toBe(expected);
    expect(JSON.parse(labelsJson(awkward))).toEqual(awkward);
    expect(labelsJson({})).toBe('{}');
  });

  it('sorts label sets as labels.Compare does: pair by pair in name order, then by length', () => {
    // labels.Compare, written out: names, then values, pair by pair; a set that is a prefix of another comes first.
    const compare = (a: Labels, b: Labels): number => {
      const pa = Object.keys(a).sort().flatMap((n) => [n, a[n]]);
      const pb = Object.keys(b).sort().flatMap((n) => [n, b[n]]);
      for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
      return pa.length - pb.length;
    };
    const rng = new SeededRandom(18);
    const pick = (xs: string[]) => xs[Math.floor(rng.next() * xs.length)];
    const sets: Labels[] = [{}, { a: 'x' }, { ab: 'x' }, { a: 'x', b: '' }, { b: 'x', a: 'x' }, { a: 'xy' }, { a: 'x', c: 'y' }];
    for (let i = 0; i < 300; i++) {
      const set: Record<string, string> = {};
      for (let k = 0; k < 1 + Math.floor(rng.next() * 4); k++) set[pick(['job', 'a', 'ab', '__name__', 'zone', 'b'])] = pick(['', 'x', 'xy', 'y', 'API', 'api', '☃']);
      sets.push(set);
    }
    const sorted = sortByLabelSets(sets, (l) => l);
    expect(sorted).toHaveLength(sets.length);
    for (let i = 1; i < sorted.length; i++) expect(compare(sorted[i - 1], sorted[i]), `${JSON.stringify(sorted[i - 1])} before ${JSON.stringify(sorted[i])}`).toBeLessThanOrEqual(0);
  });

  it('stays aligned when the results cache cuts a series', () => {
    const sent = throughWorkerAsSamples(answer(new SeededRandom(16), 30, 241, 0.1));
    expect(plainSeries(sent)).toBe(true);
    const cut = sliceSeries(sent, sent[0].timestampsMs[50], sent[0].timestampsMs[120]);
    for (const s of cut) {
      const whole = sent.find((w) => seriesKeyOf(w) === seriesKeyOf(s))!;
      const offset = whole.timestampsMs.indexOf(s.timestampsMs[0]);
      for (let p = 0; p < s.values.length; p++) expect(sampleAt(s.sampleText!, p)).toBe(sampleAt(whole.sampleText!, offset + p));
    }
  });
});
