import type { Logger } from 'pino';
import { describeLabels, type ActiveLimits, type AppliedRefusal } from '../../engine/index.js';
import type { ServiceMetrics } from '../metrics.js';
import type { IngestLimitsFor } from './limits.js';

/**
 * An ingester checks the org's active series and stream limits as it reads records from the
 * write log (engine/storage/appliedLimits.ts), since the ingest process that acknowledged them
 * keeps no heads. The writer cannot be told any more, so what is refused is counted in
 * `sluice_ingest_rejected_records_total` (reason series_limit or stream_limit, as an ingest
 * answer would have counted it) and logged at most once a minute per org and signal.
 */

/** LOG_EVERY_MS is how often one org and signal's refusals are logged at most. */
const LOG_EVERY_MS = 60_000;

/** appliedLimitsOf reads the org's active limits from the same settings ingest requests use. */
export function appliedLimitsOf(limitsFor: IngestLimitsFor): (org: string) => ActiveLimits {
  return (org) => ({ maxActiveSeries: limitsFor(org, 'metrics').maxActiveSeries, maxActiveStreams: limitsFor(org, 'logs').maxActiveStreams });
}

/** AppliedRefusals counts and logs what an ingester's limits refused. */
export class AppliedRefusals {
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly metrics: ServiceMetrics,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  record(org: string, refusal: AppliedRefusal): void {
    const reason = refusal.signal === 'metrics' ? 'series_limit' : 'stream_limit';
    const records = refusal.signal === 'metrics' ? refusal.outcome.refusedSamples : refusal.outcome.refusedLines;
    this.metrics.ingestRejected.inc({ signal: refusal.signal, reason, org }, records);
    const key = `${org}\u0000${refusal.signal}`;
    const last = this.lastLogged.get(key);
    if (last !== undefined && this.now() - last < LOG_EVERY_MS) return;
    this.lastLogged.set(key, this.now());
    const refused = refusal.signal === 'metrics' ? `${refusal.outcome.refusedSeries} new series` : `${refusal.outcome.refusedStreams} new stream(s)`;
    this.log.warn(
      { org, reason, limit: refusal.limit, records, first: describeLabels(refusal.outcome.firstRefused ?? {}) },
      `${refused} read from the write log refused: the org is at its share of the active ${refusal.signal === 'metrics' ? 'series' : 'stream'} limit (logged at most once a minute)`,
    );
  }
}
