/**
 * The record validator shared by every decoder. A record that breaks a limit is rejected on
 * its own (the rest of the request is kept), with a message naming the series or entry and
 * the field at fault, because collectors log the partial-success message verbatim and an
 * operator must be able to find the offending producer from it.
 */
import { DEFAULT_INGEST_LIMITS } from './types.js';
import type { IngestLimits } from './types.js';
import { utf8ByteLength, utf8LengthExceeds } from './utf8.js';

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

/**
 * checkLabelSet validates the names, values and size of a label set and returns why it is
 * rejected, or undefined when it is acceptable. Empty names are always invalid.
 */
export function checkLabelSet(labels: Record<string, string>, limits: IngestLimits, noun = 'labels'): string | undefined {
  let count = 0;
  for (const name in labels) {
    count++;
    if (name.length === 0) return `empty label name`;
    if (name.length > limits.maxLabelNameLength) {
      return `label name ${quoteForMessage(name)} is longer than the limit of ${limits.maxLabelNameLength} characters`;
    }
    const value = labels[name];
    if (value.length > limits.maxLabelValueLength) {
      return (
        `value of label ${quoteForMessage(name)} is ${value.length} characters long, ` +
        `over the limit of ${limits.maxLabelValueLength}`
      );
    }
  }
  if (count > limits.maxLabelsPerSeries) {
    return `${count} ${noun}, over the limit of ${limits.maxLabelsPerSeries}`;
  }
  return undefined;
}

/** checkLogLine tells why a log line is too long, or undefined when it fits. */
export function checkLogLine(line: string, limits: IngestLimits): string | undefined {
  if (!utf8LengthExceeds(line, limits.maxLogLineBytes)) return undefined;
  return `log line of ${utf8ByteLength(line)} bytes exceeds the limit of ${limits.maxLogLineBytes} bytes`;
}

/** maxTimestampMs is the latest timestamp accepted at `nowMs`. */
export function maxTimestampMs(nowMs: number, limits: IngestLimits): number {
  return nowMs + limits.maxFutureSkewMs;
}

/** futureMessage explains a timestamp rejected for lying too far ahead of the clock. */
export function futureMessage(timestampMs: number, nowMs: number, limits: IngestLimits): string {
  const ahead = Math.round((timestampMs - nowMs) / 1000);
  return (
    `timestamp ${new Date(timestampMs).toISOString()} is ${ahead}s in the future, ` +
    `over the allowed skew of ${limits.maxFutureSkewMs / 1000}s`
  );
}

/**
 * Rejections counts rejected records and keeps the first messages, so a flood of bad records
 * cannot make the error list itself the memory problem.
 */
export class Rejections {
  count = 0;
  private readonly messages: string[] = [];
  private suppressed = 0;

  /** reject records `n` rejected records for `message`. */
  reject(n: number, message: string): void {
    this.count += n;
    if (this.messages.length < MAX_ERROR_MESSAGES) this.messages.push(message);
    else this.suppressed++;
  }

  /** errors returns the kept messages, plus a line counting the ones left out. */
  errors(): string[] {
    if (this.suppressed === 0) return this.messages.slice();
    return [...this.messages, `… and ${this.suppressed} more rejection messages`];
  }
}
