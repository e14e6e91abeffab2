/**
 * Annotations collects the warnings and infos of one evaluation. Prometheus keys annotations by
 * their message, so the same note raised at every step (or for every series) is reported once;
 * we do the same, keeping the latest position, and merge the monotonicity notes of
 * histogram_quantile into one summary as Prometheus does.
 */
import { quoteGoString } from '../../common/quote.js';
import { lineColAt, type PositionRange } from '../../errors.js';
import { formatGoG } from '../../common/goFormat.js';
import type { Annotation, AnnotationLevel } from './types.js';

const WARNING_PREFIX = 'PromQL warning: ';
const INFO_PREFIX = 'PromQL info: ';

/** MonotonicityNote accumulates histogram_quantile's forced-monotonicity details across steps. */
interface MonotonicityNote {
  base: string;
  position: PositionRange;
  minTs: number;
  maxTs: number;
  minBucket: number;
  maxBucket: number;
  maxDiff: number;
  count: number;
}

/** formatRfc3339Seconds renders a millisecond timestamp as Go's time.RFC3339 in UTC. */
function formatRfc3339Seconds(ms: number): string {
  return new Date(Math.trunc(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Annotations is the per-query collector handed to every operator. */
export class Annotations {
  private readonly notes = new Map<string, Annotation>();
  private readonly monotonicity = new Map<string, MonotonicityNote>();

  /** warn records a warning; `message` excludes the "PromQL warning: " prefix. */
  warn(message: string, position: PositionRange | null): void {
    this.add('warning', WARNING_PREFIX + message, position);
  }

  /** info records an informational note; `message` excludes the "PromQL info: " prefix. */
  info(message: string, position: PositionRange | null): void {
    this.add('info', INFO_PREFIX + message, position);
  }

  private add(level: AnnotationLevel, message: string, position: PositionRange | null): void {
    this.notes.set(message, { level, message, position });
  }

  /**
   * forcedMonotonicity records that histogram_quantile had to repair decreasing bucket counts,
   * merging the time span, bucket range and largest repair across steps into one note.
   */
  forcedMonotonicity(metricName: string, position: PositionRange, ts: number, minBucket: number, maxBucket: number, maxDiff: number): void {
    let base =
      'input to histogram_quantile needed to be fixed for monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)';
    if (metricName !== '') base += ` for metric name ${quoteGoString(metricName)}`;
    const prev = this.monotonicity.get(base);
    if (prev === undefined) {
      this.monotonicity.set(base, { base, position, minTs: ts, maxTs: ts, minBucket, maxBucket, maxDiff, count: 0 });
      return;
    }
    prev.minTs = Math.min(prev.minTs, ts);
    prev.maxTs = Math.max(prev.maxTs, ts);
    prev.minBucket = Math.min(prev.minBucket, minBucket);
    prev.maxBucket = Math.max(prev.maxBucket, maxBucket);
    prev.maxDiff = Math.max(prev.maxDiff, maxDiff);
    prev.count++;
    prev.position = position;
  }

  /** list returns every annotation, warnings and infos alike, in the order first raised. */
  list(): Annotation[] {
    const out = [...this.notes.values()];
    for (const note of this.monotonicity.values()) {
      out.push({
        level: 'info',
        message:
          `${INFO_PREFIX}${note.base}, from buckets ${formatGoG(note.minBucket)} to ${formatGoG(note.maxBucket)}, ` +
          `with a max diff of ${formatGoG(note.maxDiff, 2)}, over ${note.count + 1} samples from ` +
          `${formatRfc3339Seconds(note.minTs)} to ${formatRfc3339Seconds(note.maxTs)}`,
        position: note.position,
      });
    }
    return out;
  }
}

/**
 * formatAnnotation renders an annotation the way Prometheus' API does, with the 1-based
 * line:column of its position in `query` appended: `PromQL warning: ... (1:5)`.
 */
export function formatAnnotation(annotation: Annotation, query: string): string {
  if (annotation.position === null || query === '') return annotation.message;
  const { line, col } = lineColAt(query, annotation.position.start);
  return `${annotation.message} (${line}:${col})`;
}
