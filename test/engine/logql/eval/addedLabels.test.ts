import { describe, expect, it } from 'vitest';
import { AddedLabels } from '../../../../engine/logql/eval/addedLabels.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/** AddedLabels stands in for a Map of a line's added labels: every operation must answer as a Map does, in the same order. */
describe("a line's added labels", () => {
  it('answers gets, sets, deletes and its order as a Map does, below and past its index threshold', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = new SeededRandom(seed);
      const added = new AddedLabels();
      const model = new Map<string, string>();
      // Some seeds use few names, others enough to cross into the index and back.
      const names = Array.from({ length: random.pick([4, 12, 40]) }, (_, i) => `n${i}`);
      let largest = 0;
      for (let step = 0; step < 3000; step++) {
        const name = random.pick(names);
        const op = random.int(0, 99);
        if (op === 0) {
          added.clear();
          model.clear();
        } else if (op <= 25) {
          expect(added.delete(name), `seed ${seed} step ${step}`).toBe(model.delete(name));
        } else if (op <= 65) {
          const value = `v${random.int(0, 3)}`;
          added.set(name, value);
          model.set(name, value);
        } else {
          expect(added.get(name), `seed ${seed} step ${step}`).toBe(model.get(name));
          expect(added.has(name)).toBe(model.has(name));
        }
        expect(added.size).toBe(model.size);
        largest = Math.max(largest, added.size);
      }
      // Forty names fill the line past the index threshold.
      if (names.length === 40) expect(largest, `seed ${seed}`).toBeGreaterThan(20);
      const order = Array.from({ length: added.size }, (_, i) => [added.nameAt(i), added.valueAt(i)]);
      expect(order, `seed ${seed}`).toEqual([...model.entries()]);
    }
  });
});
