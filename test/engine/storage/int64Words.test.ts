import { describe, expect, it } from 'vitest';
import { copyWords, int64Words, wordsLess } from '../../../engine/storage/int64Words.js';
import { SeededRandom } from '../../support/seededRandom.js';

describe('int64Words', () => {
  // Values around every boundary of the two words: signs, the low word's top bit, carries.
  const edges = [0n, 1n, -1n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, -(2n ** 32n), 2n ** 63n - 1n, -(2n ** 63n), 1_700_000_000_000_000_000n, 1_700_000_000_000_000_001n, 1_700_000_004_294_967_296n];
  const random = new SeededRandom(3);
  const values = new BigInt64Array([...edges, ...Array.from({ length: 200 }, () => BigInt.asIntN(64, (BigInt(random.int(0, 2 ** 31)) << 33n) ^ BigInt(random.int(0, 2 ** 31))))]);

  it('orders values as BigInt comparison does, across signs and word boundaries', () => {
    const words = int64Words(values)!;
    expect(words).toBeDefined();
    for (let i = 0; i < values.length; i++) {
      for (let j = 0; j < values.length; j++) expect(wordsLess(words, i, words, j), `${values[i]} < ${values[j]}`).toBe(values[i] < values[j]);
    }
  });

  it('copies values exactly, also between views that start inside a larger buffer', () => {
    const shared = new BigInt64Array(values.length + 3);
    const into = new BigInt64Array(shared.buffer, 16, values.length);
    const to = int64Words(into)!;
    const from = int64Words(values)!;
    for (let i = 0; i < values.length; i++) copyWords(from, i, to, values.length - 1 - i);
    expect([...into]).toEqual([...values].reverse());
    expect(shared[0]).toBe(0n);
    expect(shared[shared.length - 1]).toBe(0n);
  });
});
