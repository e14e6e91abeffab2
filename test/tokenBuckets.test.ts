import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../src/tokenBuckets.js';

/** A clock the test moves by hand, so refill arithmetic is checked exactly. */
function manualClock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('TokenBuckets', () => {
  const limit = { perSecond: 100, burst: 500 };

  it('takes a cost whole or not at all, and a refused take consumes nothing', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now);
    expect(buckets.take('a', 400, limit).allowed).toBe(true);
    const refused = buckets.take('a', 150, limit);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1, exceedsBurst: false });
    // 100 tokens are left, untouched by the refusal: 100 pass, then a half second refills 50.
    expect(buckets.take('a', 100, limit).allowed).toBe(true);
    expect(buckets.take('a', 51, limit).retryAfterSeconds).toBe(1);
    clock.advance(500);
    expect(buckets.take('a', 51, limit).allowed).toBe(false);
    expect(buckets.take('a', 50, limit).allowed).toBe(true);
  });

  it('rounds the wait up to whole seconds', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now);
    buckets.take('a', 500, limit);
    expect(buckets.take('a', 201, limit).retryAfterSeconds).toBe(3);
    expect(buckets.take('a', 200, limit).retryAfterSeconds).toBe(2);
  });

  it('keeps ids apart', () => {
    const buckets = new TokenBuckets(manualClock().now);
    expect(buckets.take('a', 500, limit).allowed).toBe(true);
    expect(buckets.take('a', 1, limit).allowed).toBe(false);
    expect(buckets.take('b', 500, limit).allowed).toBe(true);
  });

  it('refuses a cost above the burst as never passing, advising the wait until full, without drawing on the bucket', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now);
    buckets.take('a', 300, limit);
    expect(buckets.take('a', 501, limit)).toEqual({ allowed: false, retryAfterSeconds: 3, exceedsBurst: true });
    expect(buckets.take('a', 200, limit).allowed).toBe(true);
  });

  it('follows a change of rate and burst without losing the tokens it holds', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now);
    buckets.take('a', 450, limit);
    // 50 left; the rate rises tenfold: one second now refills 1000, capped by the larger burst.
    const raised = { perSecond: 1000, burst: 2000 };
    expect(buckets.take('a', 51, raised).allowed).toBe(false);
    clock.advance(1000);
    expect(buckets.take('a', 1050, raised).allowed).toBe(true);
    expect(buckets.take('a', 1, raised).allowed).toBe(false);
    // Lowered again, the bucket is capped at the smaller burst, not refilled.
    clock.advance(60_000);
    expect(buckets.take('a', 501, limit).exceedsBurst).toBe(true);
    expect(buckets.take('a', 500, limit).allowed).toBe(true);
    expect(buckets.take('a', 1, limit).allowed).toBe(false);
  });

  it('does nothing when the rate is 0', () => {
    const buckets = new TokenBuckets(manualClock().now);
    expect(buckets.take('a', 1e12, { perSecond: 0, burst: 1 }).allowed).toBe(true);
    expect(buckets.size).toBe(0);
  });

  it('holds at most maxIds buckets, dropping the least recently used', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now, 2);
    buckets.take('a', 500, limit);
    buckets.take('b', 500, limit);
    // Using a moves it behind b, so c's arrival drops b.
    expect(buckets.take('a', 1, limit).allowed).toBe(false);
    buckets.take('c', 500, limit);
    expect(buckets.size).toBe(2);
    expect(buckets.take('a', 1, limit).allowed).toBe(false);
    expect(buckets.take('b', 500, limit).allowed).toBe(true);
  });

  it('forgets buckets that have refilled completely, so memory follows the active ids', () => {
    const clock = manualClock();
    const buckets = new TokenBuckets(clock.now);
    for (let i = 0; i < 100; i++) buckets.take(`id${i}`, 500, limit);
    expect(buckets.size).toBe(100);
    clock.advance(61_000);
    buckets.take('busy', 10, limit);
    expect(buckets.size).toBe(1);
    // A forgotten bucket starts full again, as it would have been.
    expect(buckets.take('id0', 500, limit).allowed).toBe(true);
  });
});
