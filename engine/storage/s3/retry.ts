/**
 * RetryPolicy says how often and how patiently a request to the object store is repeated.
 * Delays grow exponentially from `baseDelayMs` up to `maxDelayMs`, and each one is drawn at
 * random below its ceiling ("full jitter"), so replicas that failed together do not come back
 * together and throttle the store again.
 */
export interface RetryPolicy {
  /** attempts is the total number of tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, baseDelayMs: 100, maxDelayMs: 4000 };

/** NETWORK_CODES are socket errors worth another try: the store restarted, a proxy dropped us. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/** THROTTLING_NAMES are the error codes S3 and compatible stores use to say "slow down". */
const THROTTLING_NAMES = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestTimeout', 'RequestTimeTooSkewed', 'InternalError', 'ServiceUnavailable', 'TimeoutError']);

/** RetryableError marks a failure found after a response arrived (a truncated or damaged body) as worth repeating. */
export class RetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryableError';
  }
}

/**
 * isRetryable tells transient failures (throttling, 5xx, network errors) from answers that
 * will not change on a retry (403, 404, a bad request).
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof RetryableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown; cause?: unknown };
  const status = e.$metadata?.httpStatusCode;
  if (status === 429 || (status !== undefined && status >= 500)) return true;
  if (e.$retryable) return true;
  if (e.name && THROTTLING_NAMES.has(e.name)) return true;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  // A request that never got a response carries no status; the SDK wraps socket errors.
  if (status === undefined && e.cause !== undefined && e.cause !== err) return isRetryable(e.cause);
  return false;
}

/** backoffMs is the delay before retry number `retry` (0 for the first retry). */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * withRetry runs `attempt` until it succeeds, fails with a lasting error, or the policy's
 * attempts are spent; the last error is rethrown. `onRetry` hears about each retry so the
 * owner can log a store that keeps failing.
 */
export async function withRetry<T>(policy: RetryPolicy, attempt: () => Promise<T>, onRetry?: (err: unknown, retry: number, delayMs: number) => void): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (err) {
      if (retry + 1 >= policy.attempts || !isRetryable(err)) throw err;
      const delay = backoffMs(policy, retry);
      onRetry?.(err, retry, delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
