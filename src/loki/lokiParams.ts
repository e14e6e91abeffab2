import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';

/**
 * Request parameters as Loki's HTTP API reads them, so that logcli, Grafana and scripts
 * written for Loki send what they already send: times as nanosecond or second epochs, float
 * seconds or RFC 3339; durations as Go-style `15s`/`1m30s` or float seconds; parameters in
 * the query string or a form-encoded POST body.
 */

const NS_PER_MS = 1_000_000n;

/** DEFAULT_SINCE_MS is how far back a query reaches when neither `start` nor `since` is given (Loki's 1h). */
const DEFAULT_SINCE_MS = 3_600_000;

/** DEFAULT_LIMIT is Loki's default number of log lines a query returns. */
export const DEFAULT_LIMIT = 100;

const DURATION_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|w|y))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)/g;

/** lokiParams merges the query string with a form-encoded POST body, the two places Loki reads parameters from. */
export function lokiParams(ctx: RequestContext): URLSearchParams {
  const params = new URLSearchParams(ctx.query);
  if (ctx.method === 'POST' && ctx.body !== undefined && ctx.body.length > 0) {
    for (const [key, value] of new URLSearchParams(ctx.body.toString('utf8'))) params.append(key, value);
  }
  return params;
}

/**
 * parseLokiTime reads a Loki timestamp into nanoseconds: an integer of up to 10 digits is
 * seconds, a longer one nanoseconds, a decimal number float seconds, anything else RFC 3339.
 */
export function parseLokiTime(text: string, field: string): bigint {
  const value = text.trim();
  if (/^-?\d+$/.test(value)) {
    const digits = value.replace('-', '').length;
    return digits <= 10 ? BigInt(value) * 1_000_000_000n : BigInt(value);
  }
  if (/^-?\d+\.\d*$/.test(value)) {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) return BigInt(Math.round(seconds * 1000)) * NS_PER_MS;
  }
  const ms = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(ms)) {
    // Date keeps milliseconds only; the sub-millisecond digits of RFC 3339 are added back.
    const fraction = /\.(\d{4,9})/.exec(value);
    const extraNs = fraction ? BigInt(fraction[1].padEnd(9, '0').slice(3)) : 0n;
    return BigInt(ms) * NS_PER_MS + extraNs;
  }
  throw new ApiError('BAD_REQUEST', `invalid ${field}: cannot parse "${text}" as a timestamp (nanosecond or second epoch, float seconds or RFC 3339)`);
}

/** parseLokiDuration reads a duration as Loki does: Go/Prometheus notation (`1m30s`) or float seconds, in milliseconds. */
export function parseLokiDuration(text: string, field: string): number {
  const value = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (DURATION.test(value)) {
    let total = 0;
    for (const m of value.matchAll(DURATION_PART)) total += Number(m[1]) * DURATION_UNIT_MS[m[2]];
    return total;
  }
  throw new ApiError('BAD_REQUEST', `invalid ${field}: cannot parse "${text}" as a duration (such as 15s, 1m30s or float seconds)`);
}

export interface LokiRange {
  startNs: bigint;
  endNs: bigint;
}

/** nowNs is the current time in nanoseconds. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * NS_PER_MS;
}

/**
 * lokiRange resolves `start`, `end` and `since` as Loki does: end defaults to now, start to
 * end minus `since` (itself 1h by default); a start after the end is refused.
 */
export function lokiRange(params: URLSearchParams): LokiRange {
  const endText = params.get('end');
  const endNs = endText === null || endText === '' ? nowNs() : parseLokiTime(endText, 'end');
  const startText = params.get('start');
  const sinceText = params.get('since');
  const sinceMs = sinceText === null || sinceText === '' ? DEFAULT_SINCE_MS : parseLokiDuration(sinceText, 'since');
  const startNs = startText === null || startText === '' ? endNs - BigInt(Math.round(sinceMs)) * NS_PER_MS : parseLokiTime(startText, 'start');
  if (endNs < startNs) throw new ApiError('BAD_REQUEST', 'end timestamp must not be before or equal to start time');
  return { startNs, endNs };
}

/** lokiLimit reads `limit`: a positive integer, Loki's 100 when absent. */
export function lokiLimit(params: URLSearchParams): number {
  const text = params.get('limit');
  if (text === null || text === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(text.trim()) || Number(text) <= 0) throw new ApiError('BAD_REQUEST', 'limit must be a positive value');
  return Number(text);
}

/** lokiDirection reads `direction`: Loki's default is backward, newest lines first. */
export function lokiDirection(params: URLSearchParams): 'forward' | 'backward' {
  const text = (params.get('direction') ?? '').toLowerCase();
  if (text === '' || text === 'backward') return 'backward';
  if (text === 'forward') return 'forward';
  throw new ApiError('BAD_REQUEST', `invalid direction "${params.get('direction')}": use forward or backward`);
}

/**
 * lokiStepMs reads `step`, or picks Loki's default: the range over 250 points, at least one
 * second. A step of zero or less is refused.
 */
export function lokiStepMs(params: URLSearchParams, range: LokiRange): number {
  const text = params.get('step');
  if (text === null || text === '') {
    const seconds = Number((range.endNs - range.startNs) / 1_000_000_000n) / 250;
    return Math.max(Math.floor(seconds), 1) * 1000;
  }
  const ms = parseLokiDuration(text, 'step');
  if (!(ms > 0)) throw new ApiError('BAD_REQUEST', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
  return ms;
}

/** requireQuery returns the `query` parameter, the expression every query endpoint needs. */
export function requireQuery(params: URLSearchParams): string {
  const q = params.get('query');
  if (q === null || q.trim() === '') throw new ApiError('BAD_REQUEST', 'query parameter is required: the LogQL expression to evaluate');
  return q;
}

/** nsToMsFloor and nsToMsCeil convert nanosecond bounds to the millisecond grid the engine plans on. */
export function nsToMsFloor(ns: bigint): number {
  const ms = ns / NS_PER_MS;
  return Number(ns < 0n && ms * NS_PER_MS !== ns ? ms - 1n : ms);
}

export function nsToMsCeil(ns: bigint): number {
  const ms = ns / NS_PER_MS;
  return Number(ms * NS_PER_MS === ns || ns < 0n ? ms : ms + 1n);
}
