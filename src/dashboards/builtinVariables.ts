import { formatPromDuration } from '../../engine/common/duration.js';

/**
 * Grafana's built-in dashboard variables, with Grafana's definitions, so that a dashboard
 * written for Grafana (or by someone who knows Grafana) runs here with the same numbers:
 *
 * - `$__interval`: the panel's time range divided by its max data points, rounded to a "nice"
 *   step the way Grafana rounds it, and never below the minimum interval (the scrape interval,
 *   15s by default, as for Grafana's Prometheus data source). `$__interval_ms` is the same in ms.
 * - `$__rate_interval`: max($__interval + scrape interval, 4 × scrape interval), the shortest
 *   window that holds at least four scrapes and never skips a sample between steps.
 *   `$__rate_interval_ms` is the same in ms.
 * - `$__range`: the time range in whole seconds with an `s` (`3600s`); `$__range_s` the number
 *   of seconds, `$__range_ms` of milliseconds.
 * - `$__auto`: Grafana 10's automatic window: `$__interval` for a range query and `$__range`
 *   for an instant query.
 * - `$__from` and `$__to`: the range's ends in ms since the epoch; `${__from:date}` (or
 *   `:date:iso`) gives ISO 8601 and `${__from:date:seconds}` Unix seconds.
 */

/** BuiltinName is the name of a built-in variable, without `$`. */
export type BuiltinName =
  | '__interval'
  | '__interval_ms'
  | '__rate_interval'
  | '__rate_interval_ms'
  | '__range'
  | '__range_s'
  | '__range_ms'
  | '__auto'
  | '__from'
  | '__to';

/** BuiltinKind is what a built-in stands for, which decides the placeholder lint checks queries with. */
export type BuiltinKind = 'duration' | 'number';

const BUILTIN_KINDS: Readonly<Record<BuiltinName, BuiltinKind>> = {
  __interval: 'duration',
  __interval_ms: 'number',
  __rate_interval: 'duration',
  __rate_interval_ms: 'number',
  __range: 'duration',
  __range_s: 'number',
  __range_ms: 'number',
  __auto: 'duration',
  __from: 'number',
  __to: 'number',
};

/** BUILTIN_VARIABLE_NAMES lists the built-ins in the order the docs present them. */
export const BUILTIN_VARIABLE_NAMES: readonly BuiltinName[] = Object.keys(BUILTIN_KINDS) as BuiltinName[];

/** isBuiltinVariable says whether `name` (without `$`) is one of the built-ins. */
export function isBuiltinVariable(name: string): name is BuiltinName {
  return Object.prototype.hasOwnProperty.call(BUILTIN_KINDS, name);
}

/** builtinKind says whether a built-in stands for a duration or a number. */
export function builtinKind(name: BuiltinName): BuiltinKind {
  return BUILTIN_KINDS[name];
}

/** DATE_FORMATS are the `${__from:...}` formats understood, and what each renders. */
const DATE_FORMATS: ReadonlySet<string> = new Set(['date', 'date:iso', 'date:seconds']);

/**
 * formatProblem says what is wrong with `${name:format}`, or undefined when the pair is
 * understood: only `$__from` and `$__to` take a format, and only the date ones.
 */
export function formatProblem(name: string, format: string): string | undefined {
  if ((name === '__from' || name === '__to') && DATE_FORMATS.has(format)) return undefined;
  if (name === '__from' || name === '__to') {
    return `\${${name}:${format}} uses a format that is not supported; use \${${name}} (ms), \${${name}:date} (ISO 8601) or \${${name}:date:seconds}`;
  }
  return `\${${name}:${format}}: a :format is only supported on $__from and $__to (date, date:iso, date:seconds)`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365 * DAY;

/**
 * INTERVAL_STEPS is Grafana's rounding table: an interval up to the first number becomes the
 * second. Each bound sits halfway between two neighbouring nice steps, so 73s becomes 1m and
 * 412ms becomes 500ms. Past the last bound an interval becomes a year.
 */
const INTERVAL_STEPS: ReadonlyArray<readonly [upTo: number, step: number]> = [
  [10, 1],
  [15, 10],
  [35, 20],
  [75, 50],
  [150, 100],
  [350, 200],
  [750, 500],
  [1500, SECOND],
  [3500, 2 * SECOND],
  [7500, 5 * SECOND],
  [12500, 10 * SECOND],
  [17500, 15 * SECOND],
  [25000, 20 * SECOND],
  [45000, 30 * SECOND],
  [90 * SECOND, MINUTE],
  [210 * SECOND, 2 * MINUTE],
  [450 * SECOND, 5 * MINUTE],
  [750 * SECOND, 10 * MINUTE],
  [1050 * SECOND, 15 * MINUTE],
  [1500 * SECOND, 20 * MINUTE],
  [2700 * SECOND, 30 * MINUTE],
  [5400 * SECOND, HOUR],
  [9000 * SECOND, 2 * HOUR],
  [16200 * SECOND, 3 * HOUR],
  [32400 * SECOND, 6 * HOUR],
  [DAY, 12 * HOUR],
  [2 * DAY, DAY],
  [WEEK, DAY],
  [3 * WEEK, WEEK],
];

/** Grafana's last two rows: under six weeks an interval becomes 30 days, beyond that a year. */
const MONTH_BOUND = 6 * WEEK;
const MONTH = 30 * DAY;

/** roundInterval rounds a computed interval (ms) to the nice step Grafana would use. */
export function roundInterval(ms: number): number {
  for (const [upTo, step] of INTERVAL_STEPS) if (ms <= upTo) return step;
  return ms < MONTH_BOUND ? MONTH : YEAR;
}

/**
 * formatInterval writes an interval in its largest whole unit, as Grafana shows `$__interval`
 * (`30s`, `1m`, `2h`, `1d`). Rounded intervals are whole in that unit; a minimum interval that
 * is not (90s) is written exactly instead (`1m30s`), so the query gets the value computed.
 */
export function formatInterval(ms: number): string {
  for (const [unit, size] of [['y', YEAR], ['d', DAY], ['h', HOUR], ['m', MINUTE], ['s', SECOND]] as const) {
    if (ms >= size) return ms % size === 0 ? `${ms / size}${unit}` : formatPromDuration(ms);
  }
  return `${Math.max(1, Math.round(ms))}ms`;
}

/** DEFAULT_SCRAPE_INTERVAL_MS is Grafana's default scrape interval for a Prometheus data source. */
export const DEFAULT_SCRAPE_INTERVAL_MS = 15 * SECOND;

/** DEFAULT_MAX_DATA_POINTS is the resolution Grafana's back end assumes when a request names none. */
export const DEFAULT_MAX_DATA_POINTS = 1500;

/** TimeContext is everything the built-ins are computed from: one panel's run of its queries. */
export interface TimeContext {
  fromMs: number;
  toMs: number;
  /** maxDataPoints is how many points the panel can draw; DEFAULT_MAX_DATA_POINTS when absent. */
  maxDataPoints?: number;
  /** minIntervalMs is the lower bound of $__interval; the scrape interval when absent. */
  minIntervalMs?: number;
  /** scrapeIntervalMs is how often samples arrive; DEFAULT_SCRAPE_INTERVAL_MS when absent. */
  scrapeIntervalMs?: number;
  /** queryType decides $__auto: the step for a range query, the whole range for an instant one. */
  queryType?: 'range' | 'instant';
}

/** BuiltinValues are the numbers behind every built-in for one TimeContext. */
export interface BuiltinValues {
  intervalMs: number;
  rateIntervalMs: number;
  rangeMs: number;
  fromMs: number;
  toMs: number;
  queryType: 'range' | 'instant';
}

/** computeBuiltinValues applies Grafana's definitions to one panel's time range. */
export function computeBuiltinValues(ctx: TimeContext): BuiltinValues {
  const rangeMs = Math.max(0, ctx.toMs - ctx.fromMs);
  const scrapeMs = ctx.scrapeIntervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS;
  const minIntervalMs = ctx.minIntervalMs ?? scrapeMs;
  const points = ctx.maxDataPoints !== undefined && ctx.maxDataPoints > 0 ? ctx.maxDataPoints : DEFAULT_MAX_DATA_POINTS;
  const intervalMs = Math.max(roundInterval(rangeMs / points), minIntervalMs);
  const rateIntervalMs = Math.max(intervalMs + scrapeMs, 4 * scrapeMs);
  return { intervalMs, rateIntervalMs, rangeMs, fromMs: ctx.fromMs, toMs: ctx.toMs, queryType: ctx.queryType ?? 'range' };
}

/**
 * builtinText renders one built-in as it is written into a query. `format` is the part after
 * `:` in `${name:format}`; the caller has checked it with formatProblem.
 */
export function builtinText(name: BuiltinName, values: BuiltinValues, format?: string): string {
  const rangeS = Math.round(values.rangeMs / SECOND);
  switch (name) {
    case '__interval':
      return formatInterval(values.intervalMs);
    case '__interval_ms':
      return String(Math.round(values.intervalMs));
    case '__rate_interval':
      return formatPromDuration(Math.round(values.rateIntervalMs));
    case '__rate_interval_ms':
      return String(Math.round(values.rateIntervalMs));
    case '__range':
      return `${rangeS}s`;
    case '__range_s':
      return String(rangeS);
    case '__range_ms':
      return String(Math.round(values.rangeMs));
    case '__auto':
      return values.queryType === 'instant' ? `${rangeS}s` : formatInterval(values.intervalMs);
    case '__from':
      return formatDate(values.fromMs, format);
    case '__to':
      return formatDate(values.toMs, format);
  }
}

function formatDate(ms: number, format: string | undefined): string {
  if (format === 'date' || format === 'date:iso') return new Date(ms).toISOString();
  if (format === 'date:seconds') return String(Math.floor(ms / SECOND));
  return String(Math.round(ms));
}
