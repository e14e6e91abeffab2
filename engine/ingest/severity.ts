/**
 * Severity normalization: Sluice stores one lowercase level per log entry (trace, debug, info,
 * warn, error, fatal) so that `{level="error"}` finds errors whatever logger wrote them. Texts
 * from the common logging libraries (syslog names, Java's, .NET's, Go's) map onto that set;
 * OTLP severity numbers map by their ranges.
 */

/** LEVELS are the normalized levels, in increasing severity. */
export const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** UNKNOWN_LEVEL is the level of an entry whose severity is absent or not recognized. */
export const UNKNOWN_LEVEL = 'unknown';

const TEXT_LEVELS: ReadonlyMap<string, string> = withCaseVariants({
  trace: 'trace',
  trc: 'trace',
  verbose: 'trace',
  finest: 'trace',
  finer: 'trace',
  debug: 'debug',
  dbg: 'debug',
  fine: 'debug',
  info: 'info',
  inf: 'info',
  information: 'info',
  informational: 'info',
  notice: 'info',
  warn: 'warn',
  warning: 'warn',
  wrn: 'warn',
  error: 'error',
  err: 'error',
  eror: 'error',
  severe: 'error',
  fatal: 'fatal',
  ftl: 'fatal',
  critical: 'fatal',
  crit: 'fatal',
  alert: 'fatal',
  emerg: 'fatal',
  emergency: 'fatal',
  panic: 'fatal',
  dpanic: 'fatal',
});

/**
 * withCaseVariants adds the UPPER and Capitalized spellings of every name, the forms loggers
 * actually emit, so the common case is one map lookup without lowercasing.
 */
function withCaseVariants(names: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, level] of Object.entries(names)) {
    out.set(name, level);
    out.set(name.toUpperCase(), level);
    out.set(name[0].toUpperCase() + name.slice(1), level);
  }
  return out;
}

/**
 * levelFromText normalizes a severity text (`WARNING` -> warn, `Err` -> error, `critical` ->
 * fatal). OTLP's short names with a number (`INFO2`, `ERROR3`) map like their base name.
 * Returns undefined when the text is not a known severity.
 */
export function levelFromText(text: string): string | undefined {
  if (text === '') return undefined;
  const direct = TEXT_LEVELS.get(text);
  if (direct !== undefined) return direct;
  const lower = text.trim().toLowerCase();
  return TEXT_LEVELS.get(lower) ?? TEXT_LEVELS.get(lower.replace(/[1-4]$/, ''));
}

/**
 * levelFromSeverityNumber maps an OTLP SeverityNumber by range (1-4 trace, 5-8 debug, 9-12
 * info, 13-16 warn, 17-20 error, 21-24 fatal); 0 (unspecified) and out-of-range numbers give
 * undefined.
 */
export function levelFromSeverityNumber(n: number): string | undefined {
  if (!(n >= 1 && n <= 24)) return undefined;
  return LEVELS[Math.floor((n - 1) / 4)];
}
