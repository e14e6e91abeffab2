/**
 * RateLimiter is a token bucket per API key: each key may burst up to `burst` requests and is
 * refilled at `perSecond`. Buckets of keys that fell idle are dropped, so memory follows the
 * number of active keys, not of keys ever seen.
 */
export interface RateDecision {
  allowed: boolean;
  /** retryAfterSeconds is when the next request would be allowed (whole seconds, for Retry-After). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const ALLOWED: RateDecision = { allowed: true, retryAfterSeconds: 0 };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs = 0;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  take(id: string): RateDecision {
    if (!this.enabled) return ALLOWED;
    const now = this.now();
    this.sweep(now);
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedMs: now };
      this.buckets.set(id, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * this.perSecond);
      bucket.updatedMs = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    const waitSeconds = (1 - bucket.tokens) / this.perSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
  }

  /** sweep forgets buckets that have refilled completely, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweepMs < 60_000) return;
    this.lastSweepMs = now;
    const fullAfterMs = (this.burst / this.perSecond) * 1000;
    for (const [id, bucket] of this.buckets) {
      if (now - bucket.updatedMs > fullAfterMs) this.buckets.delete(id);
    }
  }
}
