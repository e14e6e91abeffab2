import { ApiError } from '../errors.js';

/**
 * Query windows as the spec defines them: `s` and `e` accept named references (now, epoch,
 * e), relative durations (now-15m, e-3w), Unix seconds or milliseconds told apart by digit
 * count, and RFC 3339 timestamps. Everything resolves to integer milliseconds since the epoch.
 */

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** RELATIVE matches `now-15m`, `e-1h30m`, `now+5m`, `now`: an anchor and optional offsets. */
const RELATIVE = /^(now|e|epoch)\s*(?:([+-])\s*((?:\d+(?:\.\d+)?[smhdw])+))?$/;
const DURATION_PART = /(\d+(?:\.\d+)?)([smhdw])/g;
const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

function durationMs(text: string): number {
  let total = 0;
  for (const m of text.matchAll(DURATION_PART)) total += Number(m[1]) * UNIT_MS[m[2]];
  return total;
}

/**
 * parseUnixNumber tells the unit of a bare number by its integer digits: up to 10 digits are
 * seconds (every date until 2286), 11-13 milliseconds, 14-16 microseconds, 17-19 nanoseconds.
 */
function parseUnixNumber(text: string): number | undefined {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const digits = m[1].length;
  const value = Number(text);
  if (digits <= 10) return Math.round(value * 1000);
  if (m[2] !== undefined) return undefined;
  if (digits <= 13) return value;
  if (digits <= 16) return Math.round(value / 1e3);
  if (digits <= 19) return Math.round(Number(BigInt(m[1]) / 1000n) / 1000);
  return undefined;
}

export interface TimeContext {
  nowMs: number;
  /** endMs is the resolved `e`, for `s` expressions that refer to it. */
  endMs?: number;
}

/** MAX_TIME_MS is the largest instant a JavaScript Date can hold, 275,760 years from 1970. */
const MAX_TIME_MS = 8.64e15;

/**
 * MAX_STEP_SECONDS is the largest explicit step: its nanoseconds still fit a signed 64-bit
 * integer (about 292 years), the bound Prometheus puts on a step. Beyond it, steps such as
 * 1e308 overflow to Infinity and the window would hold no usable point.
 */
export const MAX_STEP_SECONDS = 9_223_372_036;

/** parseTime resolves one time expression; `field` names it in the error message. */
export function parseTime(raw: unknown, field: 's' | 'e', ctx: TimeContext): number {
  const ms = parseTimeUnchecked(raw, field, ctx);
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS) {
    throw new ApiError('VALIDATION_FAILED', `${field}: ${JSON.stringify(raw)} is outside the range of representable times`);
  }
  return ms;
}

function parseTimeUnchecked(raw: unknown, field: 's' | 'e', ctx: TimeContext): number {
  if (typeof raw === 'number' && Number.isFinite(raw)) return parseTimeUnchecked(String(raw), field, ctx);
  if (typeof raw !== 'string') throw new ApiError('VALIDATION_FAILED', `${field} must be a string time such as "now-1h"`);
  const text = raw.trim();
  const rel = RELATIVE.exec(text.toLowerCase());
  if (rel) {
    const [, anchor, sign, offset] = rel;
    let base: number;
    if (anchor === 'now') base = ctx.nowMs;
    else if (anchor === 'epoch') base = 0;
    else {
      if (field === 'e' || ctx.endMs === undefined) throw new ApiError('VALIDATION_FAILED', `${field}: "e" can only be used in s`);
      base = ctx.endMs;
    }
    const delta = offset === undefined ? 0 : durationMs(offset);
    return Math.round(sign === '-' ? base - delta : base + delta);
  }
  const unix = parseUnixNumber(text);
  if (unix !== undefined) return unix;
  if (RFC3339.test(text)) {
    const ms = Date.parse(text.replace(' ', 'T'));
    if (Number.isFinite(ms)) return ms;
  }
  throw new ApiError(
    'VALIDATION_FAILED',
    `${field}: cannot parse "${text}" as a time; use now, epoch, now-15m, e-1h, Unix seconds or milliseconds, or RFC 3339`,
  );
}

/** NICE_STEPS_MS are the steps an automatic step rounds up to, so buckets land on round times. */
const NICE_STEPS_MS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 2592000,
].map((s) => s * 1000);

export interface WindowLimits {
  defaultMaxDataPoints: number;
  maxPointsPerSeries: number;
}

export interface QueryWindow {
  startMs: number;
  endMs: number;
  stepMs: number;
  /** points is how many steps each series has: floor((e - s) / step) + 1. */
  points: number;
  /**
   * instant says the query is evaluated at `startMs` as an instant query rather than as a
   * one-step range: series keep the order the query gives them (sort(), sort_desc(), topk()),
   * and LogQL's approx_topk is accepted. resolveWindow sets it when s equals e; the Prometheus
   * and Loki /query endpoints build theirs with instantWindow.
   */
  instant: boolean;
}

/** INSTANT_STEP_MS is the nominal step of an instant window (its one point needs none). */
const INSTANT_STEP_MS = 1000;

/** instantWindow is the window of an instant query at `atMs`. */
export function instantWindow(atMs: number): QueryWindow {
  return { startMs: atMs, endMs: atMs, stepMs: INSTANT_STEP_MS, points: 1, instant: true };
}

/**
 * autoStepMs picks the smallest nice step whose point count stays within `maxDataPoints`:
 * the window divided by (points - 1), rounded up to the next entry of NICE_STEPS_MS (or to a
 * whole number of days beyond the table).
 */
export function autoStepMs(windowMs: number, maxDataPoints: number): number {
  const intervals = Math.max(1, maxDataPoints - 1);
  const raw = windowMs / intervals;
  const nice = NICE_STEPS_MS.find((s) => s >= raw);
  return nice ?? Math.ceil(raw / 86_400_000) * 86_400_000;
}

/**
 * resolveWindow applies the spec's defaults (e = now, s = e-1h) and step rules (explicit step
 * wins, 0 or absent means automatic) and rejects windows that are reversed or would produce
 * more points per series than the server allows. A window whose s equals e is an instant
 * query: this is the one place that rule lives.
 */
export function resolveWindow(
  body: { s?: unknown; e?: unknown; step?: unknown; maxDataPoints?: unknown },
  limits: WindowLimits,
  nowMs: number = Date.now(),
): QueryWindow {
  const endMs = body.e === undefined || body.e === null || body.e === '' ? nowMs : parseTime(body.e, 'e', { nowMs });
  const startMs =
    body.s === undefined || body.s === null || body.s === '' ? endMs - 3_600_000 : parseTime(body.s, 's', { nowMs, endMs });
  if (endMs < startMs) {
    throw new ApiError('VALIDATION_FAILED', `e (${new Date(endMs).toISOString()}) is earlier than s (${new Date(startMs).toISOString()})`);
  }
  const maxDataPoints = optionalInteger(body.maxDataPoints, 'maxDataPoints', 1) ?? limits.defaultMaxDataPoints;
  const explicitStep = optionalInteger(body.step, 'step', 0);
  if (explicitStep !== undefined && explicitStep > MAX_STEP_SECONDS) {
    throw new ApiError('VALIDATION_FAILED', `step must be at most ${MAX_STEP_SECONDS} seconds (about 292 years), got ${explicitStep}`);
  }
  const stepMs = explicitStep !== undefined && explicitStep > 0 ? explicitStep * 1000 : autoStepMs(endMs - startMs, maxDataPoints);
  const points = Math.floor((endMs - startMs) / stepMs) + 1;
  if (points > limits.maxPointsPerSeries) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `step ${stepMs / 1000}s over this window gives ${points} points per series, more than the limit of ${limits.maxPointsPerSeries}; use a larger step or a shorter window`,
    );
  }
  // A window of one instant (s equal to e) is an instant query.
  return { startMs, endMs, stepMs, points, instant: startMs === endMs };
}

function optionalInteger(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ApiError('VALIDATION_FAILED', `${field} must be an integer of at least ${min}`);
  }
  return value;
}
