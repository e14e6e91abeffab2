/**
 * The per-value functions behind the instant-vector functions that Math lacks: sign, angle
 * conversion, date parts, clamping and rounding. Each maps one value (plus per-step scalar
 * arguments) to one value; the function table pairs them with names, and calls.ts applies them
 * across series and steps and takes care of name dropping.
 */

/** sgn is Prometheus' sign: -1, 1, or the input itself for zeros and NaN. */
export function sgn(v: number): number {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v;
}

/** radians converts degrees to radians, as rad(). */
export function radians(v: number): number {
  return (v * Math.PI) / 180;
}

/** degrees converts radians to degrees, as deg(). */
export function degrees(v: number): number {
  return (v * 180) / Math.PI;
}

/** MIN_INT64_SECONDS is what Go's int64(x) yields for NaN and out-of-range floats on amd64. */
const MIN_INT64_SECONDS = -9223372036854775808;

/** utcDate converts float seconds to a Date the way Go's time.Unix(int64(v), 0) truncates them. */
function utcDate(seconds: number): Date | null {
  const whole = Number.isFinite(seconds) && Math.abs(seconds) < 9.2e18 ? Math.trunc(seconds) : MIN_INT64_SECONDS;
  const date = new Date(whole * 1000);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** dayOfYear is the 1-based day within the year. */
export function dayOfYear(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** The calendar fields the date functions extract (UTC) from a Unix time. */
export const yearOf = (d: Date): number => d.getUTCFullYear();
export const monthOf = (d: Date): number => d.getUTCMonth() + 1;
export const dayOfMonth = (d: Date): number => d.getUTCDate();
export const dayOfWeek = (d: Date): number => d.getUTCDay();
export const hourOf = (d: Date): number => d.getUTCHours();
export const minuteOf = (d: Date): number => d.getUTCMinutes();
export const daysInMonth = (d: Date): number => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();

/** applyDateFunction evaluates a date function on a Unix time in seconds (NaN beyond Date's range). */
export function applyDateFunction(fn: (d: Date) => number, seconds: number): number {
  const date = utcDate(seconds);
  return date === null ? NaN : fn(date);
}

/** clampValue limits v to [min, max], NaN bounds yielding NaN as Go's math.Max/Min do. */
export function clampValue(v: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, v));
}

/** roundToNearest rounds half up to a multiple of `toNearest`, as Prometheus' round(). */
export function roundToNearest(v: number, toNearest: number): number {
  const inverse = 1 / toNearest;
  return Math.floor(v * inverse + 0.5) / inverse;
}
