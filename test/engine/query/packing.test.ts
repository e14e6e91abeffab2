import { describe, expect, it } from 'vitest';
import { packSeries, packVector, unpackSeries, type PackedSeries } from '../../../engine/query/packing.js';
import type { Labels } from '../../../engine/storage/labels.js';
import { SeededRandom } from '../../support/seededRandom.js';

const AT_MS = 1_700_000_000_000;

/** comparable is a pack with its typed arrays as plain arrays, so two packs compare field by field. */
function comparable(packed: PackedSeries): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(packed)) if (value !== undefined) out[name] = ArrayBuffer.isView(value) ? Array.from(value as Uint8Array) : value;
  return out;
}

describe('an instant vector packed from its samples', () => {
  it('is the pack of its series of one point each, keys, values and every text alike', () => {
    const random = new SeededRandom(31);
    for (const count of [0, 1, 7, 5_000]) {
      const samples = Array.from({ length: count }, (_, i) => ({
        labels: (i % 7 === 3 ? { zone: 'b', code: '5"0', note: 'snow ☃' } : { code: String(200 + (i % 5)), instance: `i-${i}` }) as Labels,
        timestampMs: AT_MS,
        value: i % 11 === 0 ? NaN : (random.next() - 0.5) * 10 ** Math.floor(random.next() * 20 - 10),
      }));
      const series = samples.map((s) => ({ labels: s.labels, timestampsMs: Float64Array.of(s.timestampMs), values: Float64Array.of(s.value) }));
      for (const options of [{}, { valueText: true }, { sampleText: true }]) {
        const fromSamples = packVector(samples, options);
        expect(comparable(fromSamples), `${count} ${JSON.stringify(options)}`).toEqual(comparable(packSeries(series, options)));
        expect(unpackSeries(fromSamples).map((s) => s.labels)).toEqual(samples.map((s) => s.labels).map((l) => Object.fromEntries(Object.entries(l).sort(([a], [b]) => (a < b ? -1 : 1)))));
      }
    }
  });
});
