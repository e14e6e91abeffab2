/**
 * FailedAuthLimiter bounds how often one client address may fail authentication. Each address
 * has a bucket of `perMinute` failures, refilled at `perMinute` a minute; a failure that finds
 * the bucket empty is answered 429 with Retry-After instead of 401.
 *
 * Only failures are counted: a request whose key checks out never touches the limiter, so valid
 * keys are never slowed, even from an address that is over its budget (a proxy or NAT shared
 * with a misconfigured client must not lock everyone behind it out). Guessing a key is out of
 * reach anyway (generated keys carry 256 bits, operator-chosen ones must pass keyStrength);
 * the limit tells a client that hammers with a stale key to back off and keeps such floods out
 * of the access log at full rate.
 *
 * Memory is bounded: at most `maxAddresses` buckets are kept, the least recently failing
 * dropped first, and buckets that have refilled completely are swept once a minute.
 */
export interface FailedAuthDecision {
  limited: boolean;
  /** retryAfterSeconds is when the address may fail again (whole seconds, for Retry-After). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const NOT_LIMITED: FailedAuthDecision = { limited: false, retryAfterSeconds: 0 };

/** DEFAULT_MAX_ADDRESSES bounds the table: about 100 bytes an entry, so about 1 MB at most. */
export const DEFAULT_MAX_ADDRESSES = 10_000;

export class FailedAuthLimiter {
  /** buckets iterate in least-recently-failed-first order: a touched entry is moved to the end. */
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs = 0;

  constructor(
    private readonly perMinute: number,
    private readonly maxAddresses: number = DEFAULT_MAX_ADDRESSES,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  /** size is how many addresses are tracked now. */
  get size(): number {
    return this.buckets.size;
  }

  /** recordFailure counts one failed authentication from `address` and says whether it is over the limit. */
  recordFailure(address: string): FailedAuthDecision {
    if (!this.enabled) return NOT_LIMITED;
    const now = this.now();
    this.sweep(now);
    const refillPerMs = this.perMinute / 60_000;
    let bucket = this.buckets.get(address);
    if (bucket) {
      this.buckets.delete(address);
      bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updatedMs) * refillPerMs);
      bucket.updatedMs = now;
    } else {
      bucket = { tokens: this.perMinute, updatedMs: now };
      if (this.buckets.size >= this.maxAddresses) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(address, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return NOT_LIMITED;
    }
    return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000)) };
  }

  /** sweep forgets addresses whose bucket has refilled completely, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweepMs < 60_000) return;
    this.lastSweepMs = now;
    // A bucket refills from empty to full in one minute.
    for (const [address, bucket] of this.buckets) {
      if (now - bucket.updatedMs >= 60_000) this.buckets.delete(address);
    }
  }
}
