import { limitSeries, limitStreams } from './activeLimits.js';
import type { HeadEntry, OrgHeads } from './orgHeads.js';
import type { ActiveLimits, AppliedRefusal } from './storageOptions.js';
import type { WalEntry } from './walCodec.js';

/**
 * Scaled out, an ingest process publishes a write without holding any head, so it cannot tell
 * a new series from a known one and the org's active series and stream limits are checked
 * where the heads are: on the ingester, as each record is read from the write log (Mimir's
 * ingesters do the same when they consume its ingest storage). The writer already had its
 * answer, so what is refused here is counted and logged by the ingester, not answered.
 *
 * An org's series and streams are spread over the partitions by hash, so an ingester reading
 * `reading` of `partitions` partitions holds about that share of them and checks that share of
 * the limit (Mimir divides a global limit among its ingesters the same way). One ingester
 * reading every partition checks the limit exactly; several check it approximately.
 */

/** scaledLimits is the share of `limits` an ingester reading `reading` of `partitions` partitions checks (at least 1 where a limit is set). */
export function scaledLimits(limits: ActiveLimits, reading: number, partitions: number): ActiveLimits {
  const share = (limit: number | undefined): number | undefined => {
    if (limit === undefined || limit <= 0 || reading >= partitions) return limit;
    return Math.max(1, Math.ceil((limit * reading) / partitions));
  };
  return { maxActiveSeries: share(limits.maxActiveSeries), maxActiveStreams: share(limits.maxActiveStreams) };
}

/** limitAppliedEntry keeps what `limits` allow of one record read from the log, telling `refused` what it dropped. */
export function limitAppliedEntry<E extends WalEntry>(entry: E, heads: OrgHeads, limits: ActiveLimits, refused: (refusal: AppliedRefusal) => void): E {
  // Exemplars belong to series the heads already admitted or refused; they add none.
  if (entry.kind === 'exemplars') return entry;
  return limitHeadEntry(entry as HeadEntry, heads, limits, refused) as E;
}

function limitHeadEntry(entry: HeadEntry, heads: OrgHeads, limits: ActiveLimits, refused: (refusal: AppliedRefusal) => void): HeadEntry {
  if (entry.kind === 'metrics') {
    const { accepted, outcome } = limitSeries(() => heads.org(entry.org).active.metrics, entry.series, limits);
    if (outcome.refusedSeries === 0) return entry;
    refused({ signal: 'metrics', limit: limits.maxActiveSeries ?? 0, outcome });
    return { ...entry, series: accepted };
  }
  const { accepted, outcome } = limitStreams(() => heads.org(entry.org).active.logs, entry.records, limits);
  if (outcome.refusedStreams === 0) return entry;
  refused({ signal: 'logs', limit: limits.maxActiveStreams ?? 0, outcome });
  return { ...entry, records: accepted };
}
