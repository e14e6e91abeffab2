import { describe, expect, it } from 'vitest';
import { compileMatchers, type LabelMatcher } from '../../../engine/storage/matchers.js';
import { encodeMetricSegment, MetricSegmentReader } from '../../../engine/storage/metricSegment.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';

const T0 = 1_700_000_000_000;

/** segment holds 40 series of two metrics, with label values that hold quotes, separators and NUL. */
function segment(): MetricSegmentReader {
  const series: SeriesColumns[] = [];
  for (let i = 0; i < 40; i++) {
    const timestampsMs = Float64Array.from({ length: 20 }, (_, k) => T0 + k * 15_000);
    series.push({ labels: { __name__: i % 2 === 0 ? 'requests_total' : 'errors_total', route: `/r${i % 5}`, note: ['a', 'a\u0000b', '"q"', '\u0001'][i % 4] }, timestampsMs, values: timestampsMs.map((t) => t / 1e9 + i) });
  }
  return MetricSegmentReader.decode(encodeMetricSegment(series)!.bytes);
}

const selectors: LabelMatcher[][] = [
  [{ type: '=', name: '__name__', value: 'requests_total' }, { type: '=~', name: 'route', value: '/r[0-2]' }],
  [{ type: '=', name: '__name__', value: 'requests_total' }, { type: '!~', name: 'route', value: '/r[0-2]' }],
  [{ type: '=~', name: 'note', value: 'a\u0000b|"q"' }],
  [{ type: '=', name: 'note', value: 'a\u0000b' }],
  [{ type: '=', name: 'note', value: 'a' }, { type: '=', name: 'note', value: 'b' }],
  [],
];

const keysOf = (found: readonly SeriesColumns[]): string[] => found.map((s) => JSON.stringify(s.labels)).sort();

describe('a metric segment reader remembering selectors', () => {
  it('answers each selector as a fresh reader does, in any order and again', () => {
    const kept = segment();
    for (const round of [0, 1]) {
      for (const matchers of round === 0 ? selectors : [...selectors].reverse()) {
        const fresh = segment().select(matchers, compileMatchers(matchers), T0, T0 + 600_000);
        const again = kept.select(matchers, compileMatchers(matchers), T0, T0 + 600_000);
        expect(keysOf(again), JSON.stringify(matchers)).toEqual(keysOf(fresh));
        expect(again.reduce((n, s) => n + s.timestampsMs.length, 0)).toBe(fresh.reduce((n, s) => n + s.timestampsMs.length, 0));
      }
    }
    // A window the series' samples do not reach selects nothing, remembered selector or not.
    expect(kept.select(selectors[0], compileMatchers(selectors[0]), T0 - 120_000, T0 - 1)).toEqual([]);
  });

  it('estimates a selector\'s samples in a window from its own series only', () => {
    const reader = segment();
    const sel = (matchers: LabelMatcher[]) => ({ key: JSON.stringify(matchers.map((m) => [m.type, m.name, m.value])), matchers, compiled: compileMatchers(matchers) });
    // 12 of the 40 series (requests_total on /r0–/r2), their 20 samples each in the whole span.
    expect(reader.samplesWithin([sel(selectors[0])], T0, T0 + 285_000)).toBe(12 * 20);
    expect(reader.samplesWithin([sel([])], T0, T0 + 285_000)).toBe(40 * 20);
    // Two selectors that share series count each series once.
    expect(reader.samplesWithin([sel(selectors[0]), sel(selectors[1])], T0, T0 + 285_000)).toBe(20 * 20);
    expect(reader.samplesWithin([sel(selectors[0]), sel([])], T0, T0 + 285_000)).toBe(40 * 20);
    // Half the span: about half the samples.
    expect(Math.abs(reader.samplesWithin([sel(selectors[0])], T0, T0 + 142_500) - 120)).toBeLessThanOrEqual(2);
  });
});
