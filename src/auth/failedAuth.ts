import { TokenBuckets } from '../tokenBuckets.js';

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
 * dropped first, and buckets that have refilled completely are swept once a minute (both in
 * TokenBuckets).
 */

export interface FailedAuthDecision {
  limited: boolean;
  /** retryAfterSeconds is when the address may fail again (whole seconds, for Retry-After). */
  retryAfterSeconds: number;
}

const NOT_LIMITED: FailedAuthDecision = { limited: false, retryAfterSeconds: 0 };

/** DEFAULT_MAX_ADDRESSES bounds the table: about 100 bytes an entry, so about 1 MB at most. */
export const DEFAULT_MAX_ADDRESSES = 10_000;

export class FailedAuthLimiter {
  /** buckets drop the least recently failing address first when the table is full. */
  private readonly buckets: TokenBuckets;

  constructor(
    private readonly perMinute: number,
    maxAddresses: number = DEFAULT_MAX_ADDRESSES,
    now: () => number = () => performance.now(),
  ) {
    this.buckets = new TokenBuckets(now, maxAddresses);
  }

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
    const decision = this.buckets.take(address, 1, { perSecond: this.perMinute / 60, burst: this.perMinute });
    return decision.allowed ? NOT_LIMITED : { limited: true, retryAfterSeconds: decision.retryAfterSeconds };
  }
}
