/**
 * The instant-vector function table: element-wise math, date parts, clamping and rounding.
 * Each entry maps one value (plus per-step scalar arguments) to one value; the evaluator applies
 * it across series and steps and takes care of name dropping.
 */

/** sgn is Prometheus' sign: -1, 1, or the input itself for zeros and NaN. */
function sgn(v: number): number {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v;
}

/** MATH_FUNCTIONS are the one-argument element-wise functions. */
export const MATH_FUNCTIONS: ReadonlyMap<string, (v: number) => number> = new Map<string, (v: number) => number>([
  ['abs', Math.abs],
  ['ceil', Math.ceil],
  ['floor', Math.floor],
  ['exp', Math.exp],
  ['sqrt', Math.sqrt],
  ['ln', Math.log],
  ['log2', Math.log2],
  ['log10', Math.log10],
  ['sin', Math.sin],
  ['cos', Math.cos],
  ['tan', Math.tan],
  ['asin', Math.asin],
  ['acos', Math.acos],
  ['atan', Math.atan],
  ['sinh', Math.sinh],
  ['cosh', Math.cosh],
  ['tanh', Math.tanh],
  ['asinh', Math.asinh],
  ['acosh', Math.acosh],
  ['atanh', Math.atanh],
  ['rad', (v) => (v * Math.PI) / 180],
  ['deg', (v) => (v * 180) / Math.PI],
  ['sgn', sgn],
]);

/** MIN_INT64_SECONDS is what Go's int64(x) yields for NaN and out-of-range floats on amd64. */
const MIN_INT64_SECONDS = -9223372036854775808;

/** utcDate converts float seconds to a Date the way Go's time.Unix(int64(v), 0) truncates them. */
function utcDate(seconds: number): Date | null {
  const whole = Number.isFinite(seconds) && Math.abs(seconds) < 9.2e18 ? Math.trunc(seconds) : MIN_INT64_SECONDS;
  const date = new Date(whole * 1000);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** dayOfYear is the 1-based day within the year. */
function dayOfYear(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** DATE_FUNCTIONS extract a calendar field (UTC) from a Unix time in seconds. */
export const DATE_FUNCTIONS: ReadonlyMap<string, (d: Date) => number> = new Map<string, (d: Date) => number>([
  ['year', (d) => d.getUTCFullYear()],
  ['month', (d) => d.getUTCMonth() + 1],
  ['day_of_month', (d) => d.getUTCDate()],
  ['day_of_week', (d) => d.getUTCDay()],
  ['day_of_year', dayOfYear],
  ['hour', (d) => d.getUTCHours()],
  ['minute', (d) => d.getUTCMinutes()],
  ['days_in_month', (d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()],
]);

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
