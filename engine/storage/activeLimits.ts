import type { LogEntry, LogHead } from './logHead.js';
import { seriesKey, type MetricHead, type MetricSeries } from './metricHead.js';
import type { ActiveLimits, SeriesLimitOutcome, StreamLimitOutcome } from './storageOptions.js';

/**
 * limitStreams keeps the lines a write may add under the org's active stream limit: lines of
 * streams the head already has are always kept, new streams only while the head stays under
 * `limits.maxActiveStreams`. The head is looked up only when there is a limit, so a process
 * that keeps no heads (ingest only) makes none. The outcome says what was refused, so the
 * caller can report it. Concurrent requests may overshoot the limit by what they add between
 * them.
 */
export function limitStreams(headOf: () => LogHead, records: LogEntry[], limits: ActiveLimits): { accepted: LogEntry[]; outcome: StreamLimitOutcome } {
  const outcome: StreamLimitOutcome = { refusedStreams: 0, refusedLines: 0 };
  const limit = limits.maxActiveStreams ?? 0;
  if (limit <= 0 || records.length === 0) return { accepted: records, outcome };
  const head = headOf();
  const fresh = new Set<string>();
  const refused = new Set<string>();
  const accepted = records.filter((r) => {
    const stream = head.streamOf(r.tags);
    if (head.hasStream(stream.key) || fresh.has(stream.key)) return true;
    if (head.streamCount + fresh.size < limit) {
      fresh.add(stream.key);
      return true;
    }
    if (!refused.has(stream.key)) {
      refused.add(stream.key);
      outcome.refusedStreams++;
      outcome.firstRefused ??= { ...stream.tags };
    }
    outcome.refusedLines++;
    return false;
  });
  return { accepted, outcome };
}

/**
 * limitSeries is limitStreams for series under `limits.maxActiveSeries`: a refused series is
 * refused whole, samples and histograms counted.
 */
export function limitSeries(headOf: () => MetricHead, series: MetricSeries[], limits: ActiveLimits): { accepted: MetricSeries[]; outcome: SeriesLimitOutcome } {
  const outcome: SeriesLimitOutcome = { refusedSeries: 0, refusedSamples: 0, refusedHistograms: 0 };
  const limit = limits.maxActiveSeries ?? 0;
  if (limit <= 0) return { accepted: series, outcome };
  const head = headOf();
  const fresh = new Set<string>();
  const accepted = series.filter((s) => {
    // Kept with the series, so the head's append does not compute it again.
    const key = (s.key ??= seriesKey(s.labels));
    if (head.hasKey(key)) return true;
    if (fresh.has(key) || head.seriesCount + fresh.size < limit) {
      fresh.add(key);
      return true;
    }
    outcome.refusedSeries++;
    outcome.refusedSamples += s.values.length;
    if (s.histograms !== undefined) for (const h of s.histograms) if (h !== undefined) outcome.refusedHistograms++;
    outcome.firstRefused ??= s.labels;
    return false;
  });
  return { accepted, outcome };
}
