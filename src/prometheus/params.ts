import { parsePromDuration } from '../../engine/index.js';
import { invalidParam } from './promError.js';

/**
 * Request parameters as Prometheus reads them: from the query string and, for form-encoded
 * POSTs, from the body (body values first, as Go's Request.FormValue has it). Times are Unix
 * seconds with decimals or RFC 3339; durations are float seconds or Prometheus durations.
 */

/** MIN_TIME_MS and MAX_TIME_MS stand for an absent start or end on metadata calls. */
export const MIN_TIME_MS = -8.64e15;
export const MAX_TIME_MS = 8.64e15;

/** The spellings Prometheus' own clients send for "no bound" (Go's minTime and maxTime formatted). */
const MIN_TIME_TEXT = '-292273086-05-16T16:47:06Z';
const MAX_TIME_TEXT = '292277025-08-18T07:12:54.999999999Z';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** PromParams is one request's parameters, whichever way they came. */
export class PromParams {
  constructor(private readonly values: URLSearchParams) {}

  /** fromRequest merges a form-encoded body (when there is one) before the query string. */
  static fromRequest(query: URLSearchParams, body: Buffer | undefined, contentType: string | undefined): PromParams {
    if (body === undefined || body.length === 0) return new PromParams(query);
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return new PromParams(query);
    const merged = new URLSearchParams(body.toString('utf8'));
    for (const [name, value] of query) merged.append(name, value);
    return new PromParams(merged);
  }

  get(name: string): string | undefined {
    return this.values.get(name) ?? undefined;
  }

  all(name: string): string[] {
    return this.values.getAll(name);
  }

  /** time reads a time parameter in milliseconds; absent or empty gives `fallback`. */
  time(name: string, fallback: number): number {
    const text = this.get(name);
    if (text === undefined || text === '') return fallback;
    return parsePromTime(text, name);
  }

  /** duration reads a duration parameter in milliseconds, or undefined when absent. */
  duration(name: string): number | undefined {
    const text = this.get(name);
    if (text === undefined || text === '') return undefined;
    return parsePromDurationParam(text, name);
  }

  /** limit reads a non-negative integer limit; 0 or absent means none. */
  limit(): number {
    const text = this.get('limit');
    if (text === undefined || text === '') return 0;
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw invalidParam('limit', `cannot parse ${JSON.stringify(text)}: must be a non-negative integer`);
    return n;
  }
}

/** parsePromTime reads Unix seconds (rounded to milliseconds, as Prometheus does) or RFC 3339. */
export function parsePromTime(text: string, name: string): number {
  if (FLOAT.test(text)) {
    const seconds = Number(text);
    if (Number.isFinite(seconds)) {
      const whole = Math.trunc(seconds);
      return whole * 1000 + Math.round((seconds - whole) * 1000);
    }
  }
  if (RFC3339.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  }
  if (text === MIN_TIME_TEXT) return MIN_TIME_MS;
  if (text === MAX_TIME_TEXT) return MAX_TIME_MS;
  throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid timestamp`);
}

/** MAX_DURATION_MS is the largest duration Go's time.Duration holds (int64 nanoseconds). */
const MAX_DURATION_MS = 9_223_372_036_854;

function parsePromDurationParam(text: string, name: string): number {
  if (FLOAT.test(text)) {
    const seconds = Number(text);
    if (Math.abs(seconds * 1000) > MAX_DURATION_MS) throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid duration. It overflows int64`);
    return seconds * 1000;
  }
  const ms = parsePromDuration(text);
  if (ms === undefined) throw invalidParam(name, `cannot parse ${JSON.stringify(text)} to a valid duration`);
  return ms;
}
