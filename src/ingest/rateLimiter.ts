import type { IngestLimits } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { TokenBuckets } from '../tokenBuckets.js';
import { limitOrigin } from './limits.js';

/**
 * IngestRateLimiter holds a token bucket per org and signal, so one org writing faster than its
 * limit is refused while every other org keeps its own budget. Metrics are counted in samples
 * (Mimir's ingestion_rate), logs in UTF-8 bytes of their lines (Loki's ingestion_rate_mb).
 *
 * A request that needs more tokens than the bucket holds is refused whole, as Mimir's and Loki's
 * distributors do: storing part of it would leave the sender unable to tell which part to
 * resend. The answer is 429 with Retry-After (the wait until enough tokens have accrued), which
 * Prometheus, the OpenTelemetry exporters and Promtail/Alloy all retry with backoff. A request
 * larger than the whole burst gets 429 too (both Mimir and Loki answer it so), with a message
 * saying it can never pass and must be split.
 *
 * The rate and burst are read from the limits of each request, not kept here, so a per-org
 * change applies to the next request and the bucket keeps its tokens across it.
 */
export type IngestSignal = 'logs' | 'metrics';

/** RateSettings names the settings of one signal's limit and how it counts. */
interface RateSettings {
  rateField: keyof IngestLimits;
  burstField: keyof IngestLimits;
  unit: string;
  perSecond(limits: IngestLimits): number;
  burst(limits: IngestLimits): number;
}

const RATE_SETTINGS: Record<IngestSignal, RateSettings> = {
  metrics: {
    rateField: 'ingestSamplesPerSecond',
    burstField: 'ingestSamplesBurst',
    unit: 'samples',
    perSecond: (l) => l.ingestSamplesPerSecond,
    burst: (l) => l.ingestSamplesBurst,
  },
  logs: {
    rateField: 'ingestLogBytesPerSecond',
    burstField: 'ingestLogBurstBytes',
    unit: 'bytes of log lines',
    perSecond: (l) => l.ingestLogBytesPerSecond,
    burst: (l) => l.ingestLogBurstBytes,
  },
};

export class IngestRateLimiter {
  private readonly buckets: TokenBuckets;

  /**
   * `share` divides every rate (not the burst) among the ingest processes that admit writes for
   * the installation (SVC_INGEST_RATE_STRATEGY=global), so together they admit the org's rate;
   * absent, this process admits the whole rate.
   */
  constructor(
    now?: () => number,
    private readonly share: () => number = () => 1,
  ) {
    this.buckets = new TokenBuckets(now);
  }

  /** applies tells whether the limits give `signal` a rate at all (0 is no limit). */
  applies(signal: IngestSignal, limits: IngestLimits): boolean {
    return RATE_SETTINGS[signal].perSecond(limits) > 0;
  }

  /**
   * refusal takes `cost` (samples, or log bytes) from the org's bucket for `signal`; when the
   * bucket lacks them it takes nothing and returns the 429 to answer with.
   */
  refusal(org: string, signal: IngestSignal, cost: number, limits: IngestLimits): ApiError | undefined {
    const settings = RATE_SETTINGS[signal];
    const perSecond = settings.perSecond(limits);
    const burst = settings.burst(limits);
    const processes = Math.max(1, this.share());
    const decision = this.buckets.take(`${signal}\u0000${org}`, cost, { perSecond: perSecond / processes, burst });
    if (decision.allowed) return undefined;
    const rateName = limitOrigin(limits, settings.rateField);
    const burstName = limitOrigin(limits, settings.burstField);
    const shared = processes > 1 ? `, shared by ${processes} ingest processes (${perSecond / processes} each)` : '';
    const limitText =
      `rate_limited (${rateName}=${perSecond}, ${burstName}=${burst}): ` +
      `the org may write ${perSecond} ${settings.unit} per second${shared} with a burst of ${burst}`;
    const message = decision.exceedsBurst
      ? `${limitText}; this request of ${cost} ${settings.unit} is larger than the burst and can never be accepted: send it in smaller requests; nothing of it was stored`
      : `${limitText}; this request of ${cost} ${settings.unit} was refused whole and nothing of it was stored: retry after ${decision.retryAfterSeconds}s`;
    return new ApiError('RATE_LIMITED', message, {
      headers: { 'retry-after': String(decision.retryAfterSeconds) },
      details: {
        reason: 'rate_limited',
        limits: { [rateName]: perSecond, [burstName]: burst },
        requested: cost,
        retryAfterSeconds: decision.retryAfterSeconds,
      },
    });
  }
}
