/**
 * Durations in the two query languages. PromQL uses Prometheus' own format (`1h30m`, units
 * y w d h m s ms in descending order, integers only); LogQL ranges accept that and Go's
 * time.ParseDuration (`1.5h`, `300us`). Both parsers and the time-format code share these.
 */

const PROM_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['y', 365 * 24 * 3600 * 1000],
  ['w', 7 * 24 * 3600 * 1000],
  ['d', 24 * 3600 * 1000],
  ['h', 3600 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
  ['ms', 1],
];

const PROM_DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * parsePromDuration returns the duration in milliseconds, or undefined when `text` is not a
 * Prometheus duration. `0` alone is accepted, as Prometheus does.
 */
export function parsePromDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  const m = PROM_DURATION.exec(text);
  if (!m) return undefined;
  let total = 0;
  for (let i = 0; i < PROM_UNITS.length; i++) {
    const part = m[i + 1];
    if (part !== undefined) total += Number(part) * PROM_UNITS[i][1];
  }
  return total;
}

/** formatPromDuration renders milliseconds in the canonical Prometheus form (`1h30m`, `0s`). */
export function formatPromDuration(ms: number): string {
  if (ms === 0) return '0s';
  let out = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  for (const [unit, size] of PROM_UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

const GO_UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3,
  'μs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/**
 * parseGoDuration returns nanoseconds for Go's duration syntax (`-1.5h`, `2h45m`, `300ms`),
 * or undefined when `text` is not one. Values beyond 2^53 ns (~104 days) lose sub-microsecond
 * precision, which no query can observe.
 */
export function parseGoDuration(text: string): number | undefined {
  let i = 0;
  let sign = 1;
  if (text[i] === '-' || text[i] === '+') {
    if (text[i] === '-') sign = -1;
    i++;
  }
  if (text.slice(i) === '0') return 0;
  if (i >= text.length) return undefined;
  let total = 0;
  while (i < text.length) {
    const numStart = i;
    while (i < text.length && ((text[i] >= '0' && text[i] <= '9') || text[i] === '.')) i++;
    const num = text.slice(numStart, i);
    if (num === '' || num === '.' || num.split('.').length > 2) return undefined;
    const unitStart = i;
    while (i < text.length && !(text[i] >= '0' && text[i] <= '9') && text[i] !== '.') i++;
    const size = GO_UNITS[text.slice(unitStart, i)];
    if (size === undefined) return undefined;
    total += Number(num) * size;
  }
  return sign * total;
}

/**
 * parseLogQLDuration accepts what Loki accepts in a range or offset: a Prometheus duration
 * (which adds d, w, y) or a Go duration. Returns milliseconds.
 */
export function parseLogQLDuration(text: string): number | undefined {
  const prom = parsePromDuration(text);
  if (prom !== undefined) return prom;
  const ns = parseGoDuration(text);
  return ns === undefined ? undefined : ns / 1e6;
}
