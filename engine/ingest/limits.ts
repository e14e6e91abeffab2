/**
 * The record validator shared by every decoder. A record that breaks a limit is rejected on
 * its own (the rest of the request is kept), with a message naming the series or entry and
 * the field at fault, because collectors log the partial-success message verbatim and an
 * operator must be able to find the offending producer from it.
 */
import { DEFAULT_INGEST_LIMITS } from './types.js';
import type { DiscardCounts, DiscardReason, IngestLimits } from './types.js';
import { utf8ByteLength, utf8LengthExceeds } from '../common/utf8.js';

/** MAX_ERROR_MESSAGES bounds the messages kept per request; the count stays exact. */
export const MAX_ERROR_MESSAGES = 100;

/** MAX_QUOTED bounds how much of a name or value is quoted back in a message. */
const MAX_QUOTED = 120;

/** resolveLimits fills the limits a caller did not set with the defaults. */
export function resolveLimits(overrides?: Partial<IngestLimits>): IngestLimits {
  const limits: IngestLimits = { ...DEFAULT_INGEST_LIMITS };
  if (overrides) {
    for (const key of Object.keys(limits) as Array<keyof IngestLimits>) {
      const value = overrides[key];
      if (value !== undefined) limits[key] = value;
    }
  }
  return limits;
}

/** quoteForMessage renders a name or value for an error message, shortened if long. */
export function quoteForMessage(text: string): string {
  if (text.length <= MAX_QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_QUOTED))}… (${text.length} chars)`;
}

/** MAX_DESCRIBED_VALUE bounds each label value quoted by describeLabels. */
const MAX_DESCRIBED_VALUE = 60;

/** describeLabels renders a label set as `{a="b", c="d"}` for messages, shortened if long. */
export function describeLabels(labels: Record<string, string>): string {
  let out = '{';
  let first = true;
  for (const name in labels) {
    const value = labels[name];
    const shownValue =
      value.length > MAX_DESCRIBED_VALUE ? `${JSON.stringify(value.slice(0, MAX_DESCRIBED_VALUE))}…` : JSON.stringify(value);
    const shownName = name.length > MAX_DESCRIBED_VALUE ? `${name.slice(0, MAX_DESCRIBED_VALUE)}…` : name;
    const part = `${first ? '' : ', '}${shownName}=${shownValue}`;
    if (out.length + part.length > 240) {
      out += first ? '…' : ', …';
      break;
    }
    out += part;
    first = false;
  }
  return out + '}';
}

/** Problem is why one record is rejected: the reason it is counted under and the message. */
export interface Problem {
  reason: DiscardReason;
  message: string;
}

/**
 * checkLabels validates the names, values and number of a label set, naming the first label at
 * fault. `maxCount` and `countReason` pick the count limit that applies (series or stream).
 */
function checkLabels(
  labels: Record<string, string>,
  limits: IngestLimits,
  maxCount: number,
  countReason: DiscardReason,
  noun: string,
): Problem | undefined {
  let count = 0;
  for (const name in labels) {
    count++;
    if (name.length === 0) return { reason: 'invalid_labels', message: 'empty label name' };
    if (name.length > limits.maxLabelNameLength) {
      return {
        reason: 'label_name_too_long',
        message: `label name ${quoteForMessage(name)} is longer than the limit of ${limits.maxLabelNameLength} characters`,
      };
    }
    const value = labels[name];
    if (value.length > limits.maxLabelValueLength) {
      return {
        reason: 'label_value_too_long',
        message:
          `value of label ${quoteForMessage(name)} is ${value.length} characters long, ` +
          `over the limit of ${limits.maxLabelValueLength}`,
      };
    }
  }
  if (count > maxCount) return { reason: countReason, message: `${count} ${noun}, over the limit of ${maxCount}` };
  return undefined;
}

/** checkSeriesLabels validates the label set of a metric series (`__name__` included in the count). */
export function checkSeriesLabels(labels: Record<string, string>, limits: IngestLimits): Problem | undefined {
  return checkLabels(labels, limits, limits.maxLabelsPerSeries, 'max_label_names_per_series', 'labels');
}

/** checkStreamLabels validates the labels that make up a log stream. */
export function checkStreamLabels(labels: Record<string, string>, limits: IngestLimits): Problem | undefined {
  return checkLabels(labels, limits, limits.maxLabelsPerStream, 'max_label_names_per_stream', 'stream labels');
}

/**
 * checkLineAttributes validates the attributes a log line carries besides its stream labels
 * (Loki's structured metadata): their number, their total size and the length of each name.
 * Values are bounded only by the total, as a stack trace in an attribute is ordinary.
 */
export function checkLineAttributes(names: readonly string[], values: readonly string[], limits: IngestLimits): Problem | undefined {
  if (names.length > limits.maxLineAttributes) {
    return { reason: 'max_line_attributes', message: `${names.length} attributes, over the limit of ${limits.maxLineAttributes}` };
  }
  let bytes = 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name.length === 0) return { reason: 'invalid_labels', message: 'empty attribute name' };
    if (name.length > limits.maxLabelNameLength) {
      return {
        reason: 'label_name_too_long',
        message: `attribute name ${quoteForMessage(name)} is longer than the limit of ${limits.maxLabelNameLength} characters`,
      };
    }
    bytes += utf8ByteLength(name) + utf8ByteLength(values[i]);
  }
  if (bytes > limits.maxLineAttributesBytes) {
    return {
      reason: 'line_attributes_too_large',
      message: `attributes of ${bytes} bytes exceed the limit of ${limits.maxLineAttributesBytes} bytes`,
    };
  }
  return undefined;
}

/** checkLogLine tells why a log line is too long, or undefined when it fits. */
export function checkLogLine(line: string, limits: IngestLimits): Problem | undefined {
  if (!utf8LengthExceeds(line, limits.maxLogLineBytes)) return undefined;
  return {
    reason: 'line_too_long',
    message: `log line of ${utf8ByteLength(line)} bytes exceeds the limit of ${limits.maxLogLineBytes} bytes`,
  };
}

/**
 * MAX_DATE_MS is the largest distance from the epoch a JavaScript Date can hold (about 275,000
 * years). Anything beyond cannot be printed, stored in a catalog or compared with a query
 * range, so it is refused however lenient the other bounds are.
 */
export const MAX_DATE_MS = 8.64e15;

const NS_PER_MS = 1_000_000n;

/** formatTimeMs renders a timestamp for a message; never throws, whatever the number. */
export function formatTimeMs(ms: number): string {
  if (Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS) return new Date(ms).toISOString();
  return `${String(ms)} ms`;
}

/**
 * TimeBounds decides whether a timestamp is acceptable at the receiver's clock `nowMs`: a whole
 * number of milliseconds (or nanoseconds) from the epoch on, inside the Date range, at most
 * `maxFutureSkewMs` ahead and, when `maxSampleAgeMs` is set, no older than that.
 */
export class TimeBounds {
  readonly nowMs: number;
  readonly minMs: number;
  readonly maxMs: number;

  constructor(
    nowMs: number,
    private readonly limits: IngestLimits,
  ) {
    this.nowMs = nowMs;
    this.maxMs = nowMs + limits.maxFutureSkewMs;
    this.minMs = limits.maxSampleAgeMs > 0 ? nowMs - limits.maxSampleAgeMs : 0;
  }

  /** checkMs checks a timestamp in milliseconds. */
  checkMs(ms: number): Problem | undefined {
    if (!Number.isInteger(ms)) {
      return { reason: 'invalid_timestamp', message: `timestamp ${String(ms)} is not a whole number of milliseconds` };
    }
    if (ms < 0) return { reason: 'invalid_timestamp', message: `timestamp ${formatTimeMs(ms)} is before 1970` };
    if (ms > MAX_DATE_MS) {
      return { reason: 'invalid_timestamp', message: `timestamp ${ms} ms is beyond the range of dates (${MAX_DATE_MS} ms)` };
    }
    if (ms > this.maxMs) {
      const ahead = Math.round((ms - this.nowMs) / 1000);
      return {
        reason: 'too_far_in_future',
        message:
          `timestamp ${formatTimeMs(ms)} is too new: ${ahead}s in the future, ` +
          `over the allowed skew of ${this.limits.maxFutureSkewMs / 1000}s`,
      };
    }
    if (ms < this.minMs) {
      return {
        reason: 'too_old',
        message:
          `timestamp ${formatTimeMs(ms)} is too old: the oldest accepted is ${formatTimeMs(this.minMs)} ` +
          `(${formatAge(this.limits.maxSampleAgeMs)} before now)`,
      };
    }
    return undefined;
  }

  /** checkNs checks a timestamp in nanoseconds, judged by its millisecond (rounded down). */
  checkNs(ns: bigint): Problem | undefined {
    if (ns < 0n) return { reason: 'invalid_timestamp', message: `timestamp ${ns} ns is before 1970` };
    const ms = Number(ns / NS_PER_MS);
    if (ms > MAX_DATE_MS) {
      return { reason: 'invalid_timestamp', message: `timestamp ${ns} ns is beyond the range of dates (${MAX_DATE_MS} ms)` };
    }
    return this.checkMs(ms);
  }
}

/** formatAge renders a duration in the largest whole unit that fits, for messages. */
function formatAge(ms: number): string {
  const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms % 86_400_000 === 0) return plural(ms / 86_400_000, 'day');
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  return `${Math.round(ms / 1000)} s`;
}

/**
 * Rejections counts rejected records, per reason too, and keeps the first messages, so a flood
 * of bad records cannot make the error list itself the memory problem.
 */
export class Rejections {
  count = 0;
  readonly byReason: DiscardCounts = {};
  private readonly messages: string[] = [];
  private suppressed = 0;

  /** reject records `n` rejected records for `reason`, explained by `message`. */
  reject(n: number, reason: DiscardReason, message: string): void {
    this.count += n;
    this.byReason[reason] = (this.byReason[reason] ?? 0) + n;
    if (this.messages.length < MAX_ERROR_MESSAGES) this.messages.push(message);
    else this.suppressed++;
  }

  /** errors returns the kept messages, plus a line counting the ones left out. */
  errors(): string[] {
    if (this.suppressed === 0) return this.messages.slice();
    return [...this.messages, `… and ${this.suppressed} more rejection messages`];
  }
}
