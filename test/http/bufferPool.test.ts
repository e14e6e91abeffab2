import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../src/http/bufferPool.js';

describe('BufferPool', () => {
  it('hands a given-back buffer out again, keeps at most its bound, and leaves foreign buffers alone', () => {
    const pool = new BufferPool(1024, 2);
    const [a, b, c] = [pool.take(), pool.take(), pool.take()];
    expect(new Set([a, b, c]).size).toBe(3);
    expect(a.length).toBe(1024);
    // A view of a buffer counts as the buffer.
    pool.give(a.subarray(10, 20));
    expect(pool.take()).toBe(a);
    const foreign = Buffer.allocUnsafeSlow(1024);
    expect(pool.madeHere(foreign)).toBe(false);
    expect(pool.madeHere(b.subarray(5))).toBe(true);
    pool.give(foreign);
    pool.give(a);
    pool.give(b);
    pool.give(c);
    // Two kept (the bound: c is not), the foreign one never: the next takes are b and a, then a new one.
    expect(pool.take()).toBe(b);
    expect(pool.take()).toBe(a);
    const fresh = pool.take();
    expect([a, b, c, foreign].some((x) => x === fresh)).toBe(false);
  });
});
