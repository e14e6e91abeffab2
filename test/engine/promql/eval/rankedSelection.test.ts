import { describe, expect, it } from 'vitest';
import { BestK, labelRanks, selectedBefore } from '../../../../engine/promql/eval/rankedSelection.js';

describe('ranked selection', () => {
  it('orders larger values first (smaller for bottomk), NaN last, equal values by rank', () => {
    expect(selectedBefore(2, 5, 1, 0, false)).toBe(true);
    expect(selectedBefore(2, 5, 1, 0, true)).toBe(false);
    expect(selectedBefore(1, 0, NaN, 1, false)).toBe(true);
    expect(selectedBefore(NaN, 0, 1, 1, true)).toBe(false);
    expect(selectedBefore(NaN, 0, NaN, 1, false)).toBe(true);
    expect(selectedBefore(3, 1, 3, 0, false)).toBe(false);
    expect(selectedBefore(-0, 0, 0, 1, false)).toBe(true);
  });

  it('ranks label sets in label order, whatever order their names come in', () => {
    expect(Array.from(labelRanks([{ job: 'b' }, { instance: 'x', job: 'a' }, { job: 'a', instance: 'x' }, { job: 'a' }]))).toEqual([3, 0, 1, 2]);
  });

  it('keeps the k best of any offering order', () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, NaN, 8, 9, 7, 9];
    const before = (a: number, b: number): boolean => selectedBefore(values[a], a, values[b], b, false);
    const expected = values.map((_, i) => i).sort((a, b) => (before(a, b) ? -1 : 1));
    for (let trial = 0; trial < 50; trial++) {
      const order = values.map((_, i) => i).sort(() => Math.random() - 0.5);
      for (const k of [0, 1, 3, 7, 16, 40]) {
        const best = new BestK(k, before);
        for (const i of order) best.offer(i);
        expect([...best.members].sort((a, b) => a - b)).toEqual(expected.slice(0, k).sort((a, b) => a - b));
      }
    }
  });
});
