import { describe, expect, it } from 'vitest';
import { closestMatches, suggestClosest } from '../src/suggest.js';

/** counted yields `total` candidates made by `make` and records how many were drawn. */
function counted(total: number, make: (i: number) => string): { drawn: number } & Iterable<string> {
  const state = {
    drawn: 0,
    *[Symbol.iterator](): Iterator<string> {
      for (let i = 0; i < total; i++) {
        state.drawn++;
        yield make(i);
      }
    },
  };
  return state;
}

describe('suggestions stay bounded whatever the caller passes', () => {
  it('suggestClosest skips candidates whose length rules them out without changing the answer', () => {
    const candidates = ['x'.repeat(5000), 'status', 'y'.repeat(5000)];
    expect(suggestClosest('statsu', candidates)).toBe('status');
  });

  it('suggestClosest gives no hint for a word too long to have been typed', () => {
    const long = 'a'.repeat(300);
    expect(suggestClosest(long, [long.slice(1)])).toBeUndefined();
  });

  it('suggestClosest stops comparing after its budget', () => {
    const candidates = counted(1_000_000, (i) => `service-${String(i).padStart(12, '0')}`);
    expect(suggestClosest('service-00000000000x', candidates)).toBeDefined();
    expect(candidates.drawn).toBeLessThan(10_000);
  });

  it('closestMatches stops comparing after its budget, ranking what it saw', () => {
    // Each candidate costs an edit distance of 200 by about 205 characters.
    const candidates = counted(1_000_000, (i) => `${'w'.repeat(200)}${i}`);
    expect(closestMatches('v'.repeat(200), candidates)).toHaveLength(0);
    expect(candidates.drawn).toBeGreaterThan(0);
    expect(candidates.drawn).toBeLessThan(1_000);
  });

  it('closestMatches still prefers containment and then edit distance', () => {
    expect(closestMatches('requests', ['http_requests_total', 'reqeusts', 'latency'])).toEqual(['http_requests_total', 'reqeusts']);
  });
});
