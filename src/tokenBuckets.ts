/**
 * TokenBuckets is the service's one token bucket implementation, keyed by an id (an API key, an
 * org and signal...). Each bucket holds up to `burst` tokens and refills at `perSecond`; a take
 * of `cost` tokens succeeds whole or not at all, and a refused take consumes nothing, so a
 * sender that waits the advised time is let through (the semantics of Go's rate.Limiter.AllowN,
 * which Mimir and Loki use for their ingestion limits).
 *
 * The rate and burst are passed on every take rather than fixed at construction, because they
 * may change while the service runs (an org's limits are read per request): a bucket keeps its
 * tokens across a change, refilling at the new rate and capped at the new burst.
 *
 * Buckets that have refilled completely hold no information (a fresh one starts full), so they
 * are forgotten: memory follows the number of active ids, not of ids ever seen. Where ids come
 * from outside (client addresses), `maxIds` also bounds the table: the least recently used
 * bucket is dropped to make room, which only ever errs on the lenient side.
 */
export interface BucketLimit {
  /** tokens added per second; 0 or less disables the limit */
  perSecond: number;
  /** the bucket's capacity: the most that can be taken at once after a pause */
  burst: number;
}

export interface TakeDecision {
  allowed: boolean;
  /**
   * retryAfterSeconds is how long until the take would succeed, in whole seconds rounded up
   * (at least 1) for a Retry-After header; 0 when allowed. A cost above the burst can never
   * succeed: it is advised to wait until the bucket is full, when a smaller batch surely passes.
   */
  retryAfterSeconds: number;
  /** exceedsBurst is true when the cost is larger than the whole bucket */
  exceedsBurst: boolean;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** when the bucket will be full at the rate last seen; after that it may be forgotten */
  fullAtMs: number;
}

const ALLOWED: TakeDecision = { allowed: true, retryAfterSeconds: 0, exceedsBurst: false };

/** SWEEP_INTERVAL_MS is how often full buckets are looked for and dropped. */
const SWEEP_INTERVAL_MS = 60_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs: number;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly maxIds: number = Number.POSITIVE_INFINITY,
  ) {
    this.lastSweepMs = now();
  }

  /** size is the number of buckets held (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  /** take removes `cost` tokens from the bucket of `id` if it holds that many. */
  take(id: string, cost: number, limit: BucketLimit): TakeDecision {
    if (!(limit.perSecond > 0)) return ALLOWED;
    const burst = Math.max(0, limit.burst);
    const now = this.now();
    this.sweep(now);
    let bucket = this.buckets.get(id);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxIds) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: burst, updatedMs: now, fullAtMs: now };
      this.buckets.set(id, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * limit.perSecond);
      bucket.updatedMs = now;
      if (this.maxIds !== Number.POSITIVE_INFINITY) {
        // Map order is the eviction order: a used bucket moves to the end.
        this.buckets.delete(id);
        this.buckets.set(id, bucket);
      }
    }
    const allowed = cost <= bucket.tokens;
    if (allowed) bucket.tokens -= cost;
    bucket.fullAtMs = now + ((burst - bucket.tokens) / limit.perSecond) * 1000;
    if (allowed) return ALLOWED;
    const exceedsBurst = cost > burst;
    const missing = (exceedsBurst ? burst : cost) - bucket.tokens;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / limit.perSecond)), exceedsBurst };
  }

  /** sweep forgets buckets that have refilled completely, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = now;
    for (const [id, bucket] of this.buckets) {
      if (now >= bucket.fullAtMs) this.buckets.delete(id);
    }
  }
}
