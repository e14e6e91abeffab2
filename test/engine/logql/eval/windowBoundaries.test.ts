import { describe, expect, it } from 'vitest';
import { makeHead, range, type Entry } from './helpers.js';

/** seeded is a small deterministic generator for the property checks. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('window boundaries', () => {
  it('counts exactly the lines in (t - offset - range, t - offset] for every step', () => {
    const next = seeded(11);
    for (let trial = 0; trial < 25; trial++) {
      const times: number[] = [];
      const entries: Entry[] = [];
      for (let i = 0; i < 60; i++) {
        // Half-second resolution puts many lines exactly on window edges.
        const at = Math.floor(next() * 240) / 2;
        times.push(at);
        entries.push({ tags: { app: 'a' }, line: `v=${i}`, atSec: at });
      }
      const head = makeHead(entries);
      const rangeSec = [0.5, 1, 5, 10, 30, 60][Math.floor(next() * 6)];
      const stepSec = [0.5, 1, 5, 7, 30][Math.floor(next() * 5)];
      const offsetSec = [0, 0, 1, 10][Math.floor(next() * 4)];
      const startSec = Math.floor(next() * 20);
      const endSec = startSec + 60;
      const fmt = (s: number): string => `${Math.round(s * 1000)}ms`;
      const offset = offsetSec > 0 ? ` offset ${fmt(offsetSec)}` : '';
      const counts = range(head, `count_over_time({app="a"} [${fmt(rangeSec)}]${offset})`, startSec, endSec, stepSec);
      const sums = range(head, `sum_over_time({app="a"} | logfmt | unwrap v [${fmt(rangeSec)}]${offset})`, startSec, endSec, stepSec);
      const expectedCounts: Array<[number, number]> = [];
      for (let t = startSec; t <= endSec + 1e-9; t += stepSec) {
        const hi = t - offsetSec;
        const n = times.filter((x) => x > hi - rangeSec && x <= hi).length;
        if (n > 0) expectedCounts.push([t, n]);
      }
      const got = counts.series[0];
      const gotPairs = got === undefined ? [] : [...got.timestampsMs].map((ms, i) => [(ms - Date.UTC(2026, 0, 1)) / 1000, got.values[i]]);
      expect(gotPairs, `range ${rangeSec}s step ${stepSec}s offset ${offsetSec}s`).toEqual(expectedCounts);
      // The windowed sum path and the sliding kernel agree on which steps have data.
      const sumSteps = sums.series.flatMap((s) => [...s.timestampsMs]);
      expect(new Set(sumSteps)).toEqual(new Set(got === undefined ? [] : [...got.timestampsMs]));
    }
  });
});
