import { TokenBuckets } from '../tokenBuckets.js';

/**
 * RateLimiter limits requests per API key: each key may burst up to `burst` requests and is
 * refilled at `perSecond`. One request costs one token of the key's bucket (see TokenBuckets).
 */
export interface RateDecision {
  allowed: boolean;
  /** retryAfterSeconds is when the next request would be allowed (whole seconds, for Retry-After). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly buckets: TokenBuckets;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: () => number = () => performance.now(),
  ) {
    this.buckets = new TokenBuckets(now);
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  take(id: string): RateDecision {
    const { allowed, retryAfterSeconds } = this.buckets.take(id, 1, { perSecond: this.perSecond, burst: this.burst });
    return { allowed, retryAfterSeconds };
  }
}
