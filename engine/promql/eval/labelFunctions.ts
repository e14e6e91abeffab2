/**
 * label_replace and label_join rewrite series identities without touching values. Writing
 * `__name__` revives a metric name that was due for removal; other targets keep the series'
 * pending removal as it was.
 */
import { printableText } from '../../common/goBytes.js';
import { compileRegex, type Regex } from '../../regex/index.js';
import { isValidLabelName } from '../labelNames.js';
import { evalError } from './context.js';
import { METRIC_NAME, withLabel } from './labelset.js';
import type { VectorSeries } from './series.js';

/** compileLabelReplaceRegex anchors the pattern and lets `.` match newlines, as Prometheus does. */
export function compileLabelReplaceRegex(pattern: string): Regex {
  try {
    return compileRegex(`^(?s:${pattern})$`);
  } catch {
    throw evalError(`invalid regular expression in label_replace(): ${printableText(pattern)}`);
  }
}

/**
 * validateLabelName rejects names Prometheus rejects: empty ones and invalid UTF-8. Go prints
 * the name's raw bytes into the message; a client reads invalid ones as U+FFFD, as here.
 */
export function validateLabelName(name: string, fn: string, role: string): void {
  if (!isValidLabelName(name)) throw evalError(`invalid ${role} label name in ${fn}(): ${printableText(name)}`);
}

/**
 * labelReplace sets `dst` to the expansion of `replacement` when `regex` matches the whole value
 * of `src` (an absent label reads as empty); a non-matching series is returned unchanged.
 */
export function labelReplace(series: VectorSeries, dst: string, replacement: string, src: string, regex: Regex): VectorSeries {
  const value = series.labels[src] ?? '';
  const match = regex.execIndices(value);
  if (match === null) return series;
  const labels = withLabel(series.labels, dst, regex.expand(replacement, value, match));
  return { labels, values: series.values, present: series.present, dropName: dst === METRIC_NAME ? false : series.dropName };
}

/** labelJoin sets `dst` to the values of `srcs` joined by `separator` (absent labels read as empty). */
export function labelJoin(series: VectorSeries, dst: string, separator: string, srcs: readonly string[]): VectorSeries {
  const joined = srcs.map((name) => series.labels[name] ?? '').join(separator);
  const labels = withLabel(series.labels, dst, joined);
  return { labels, values: series.values, present: series.present, dropName: dst === METRIC_NAME ? false : series.dropName };
}
