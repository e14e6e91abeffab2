/**
 * OTLP to Prometheus naming, as Prometheus' OTLP receiver does it with its default
 * "underscore escaping with suffixes" strategy (the OpenTelemetry compatibility spec):
 *
 * - metric names are split on every character outside [a-zA-Z0-9:] and joined with `_`, so
 *   `http.server.request.duration` becomes `http_server_request_duration`;
 * - the unit becomes a suffix unless the name already contains it: `s` -> `_seconds`,
 *   `ms` -> `_milliseconds`, `By` -> `_bytes`, `By/s` -> `_bytes_per_second`, `{request}/s`
 *   -> `_per_second` (curly-brace annotations are dropped), unknown units as written;
 * - monotonic sums get `_total`, gauges with unit `1` get `_ratio`;
 * - label names have invalid characters replaced by `_` (runs collapsed), a leading digit gets
 *   `key_`, and `__reserved__` names keep their double underscores.
 */

/** OtlpMetricKind is what the naming rules need to know about a metric's type. */
export type OtlpMetricKind = 'gauge' | 'monotonicCounter' | 'nonMonotonicCounter' | 'histogram' | 'summary';

const UNIT_NAMES: ReadonlyMap<string, string> = new Map([
  ['d', 'days'],
  ['h', 'hours'],
  ['min', 'minutes'],
  ['s', 'seconds'],
  ['ms', 'milliseconds'],
  ['us', 'microseconds'],
  ['ns', 'nanoseconds'],
  ['By', 'bytes'],
  ['KiBy', 'kibibytes'],
  ['MiBy', 'mebibytes'],
  ['GiBy', 'gibibytes'],
  ['TiBy', 'tibibytes'],
  ['KBy', 'kilobytes'],
  ['MBy', 'megabytes'],
  ['GBy', 'gigabytes'],
  ['TBy', 'terabytes'],
  ['m', 'meters'],
  ['V', 'volts'],
  ['A', 'amperes'],
  ['J', 'joules'],
  ['W', 'watts'],
  ['g', 'grams'],
  ['Cel', 'celsius'],
  ['Hz', 'hertz'],
  ['1', ''],
  ['%', 'percent'],
]);

const PER_UNIT_NAMES: ReadonlyMap<string, string> = new Map([
  ['s', 'second'],
  ['m', 'minute'],
  ['h', 'hour'],
  ['d', 'day'],
  ['w', 'week'],
  ['mo', 'month'],
  ['y', 'year'],
]);

const INVALID_METRIC_CHARS = /[^a-zA-Z0-9:]+/;
const INVALID_METRIC_RUN = /[^a-zA-Z0-9:]+/g;
const INVALID_LABEL_RUN = /[^a-zA-Z0-9]+/g;
const ANNOTATION = /\{[^}]*\}/g;

/** UnitSuffixes are the main and "per" parts of a unit, already in Prometheus words. */
interface UnitSuffixes {
  main: string;
  per: string;
}

/** cleanUnitWord keeps a unit word within metric-name characters, runs of `_` collapsed. */
function cleanUnitWord(word: string): string {
  return word.replace(INVALID_METRIC_RUN, '_').replace(/_+/g, '_').replace(/^_/, '');
}

function unitSuffixes(unit: string): UnitSuffixes {
  const stripped = unit.replace(ANNOTATION, '');
  const slash = stripped.indexOf('/');
  const mainText = (slash < 0 ? stripped : stripped.slice(0, slash)).trim();
  const perText = slash < 0 ? '' : stripped.slice(slash + 1).trim();
  const main = mainText === '' ? '' : cleanUnitWord(UNIT_NAMES.get(mainText) ?? mainText);
  let per = perText === '' ? '' : cleanUnitWord(PER_UNIT_NAMES.get(perText) ?? perText);
  if (per !== '') per = `per_${per}`.replace(/_+$/, '');
  return { main, per };
}

/**
 * prometheusUnit renders an OTLP unit the way Prometheus records it as metadata
 * (`By/s` -> `bytes_per_second`, `1` -> '').
 */
export function prometheusUnit(unit: string): string {
  const { main, per } = unitSuffixes(unit);
  const joined = main !== '' && per !== '' ? `${main.replace(/_+$/, '')}_${per}` : main || per;
  return joined.replace(/^_+/, '').replace(/_+$/, '');
}

/**
 * prometheusMetricName builds the Prometheus name of an OTLP metric, or '' when nothing valid
 * remains (a name made only of punctuation), which the caller reports as a rejection.
 */
export function prometheusMetricName(name: string, unit: string, kind: OtlpMetricKind): string {
  const tokens = name.split(INVALID_METRIC_CHARS).filter((t) => t !== '');
  let { main, per } = unitSuffixes(unit);
  if (tokens.includes(main)) main = '';
  if (per !== '' && tokens.includes(per)) per = '';
  if (per !== '') main = main.replace(/_+$/, '');
  if (main !== '') tokens.push(main);
  if (per !== '') tokens.push(per);
  let out = tokens;
  if (kind === 'monotonicCounter') out = [...out.filter((t) => t !== 'total'), 'total'];
  if (unit.trim() === '1' && kind === 'gauge') out = [...out.filter((t) => t !== 'ratio'), 'ratio'];
  let result = out.join('_');
  if (result !== '' && result.charCodeAt(0) >= 48 && result.charCodeAt(0) <= 57) result = `_${result}`;
  return /^_*$/.test(result) ? '' : result;
}

const labelNameCache = new Map<string, string>();
const LABEL_CACHE_LIMIT = 10_000;

/**
 * prometheusLabelName converts an attribute key to a label name, or '' when nothing valid
 * remains. Results are cached: the same few attribute keys recur in every request.
 */
export function prometheusLabelName(key: string): string {
  const cached = labelNameCache.get(key);
  if (cached !== undefined) return cached;
  const name = computeLabelName(key);
  if (labelNameCache.size >= LABEL_CACHE_LIMIT) labelNameCache.clear();
  labelNameCache.set(key, name);
  return name;
}

function computeLabelName(key: string): string {
  if (key === '') return '';
  const reserved = key.length >= 4 && key.startsWith('__') && key.endsWith('__');
  const core = reserved ? key.slice(2, -2) : key;
  let name = core.replace(INVALID_LABEL_RUN, '_');
  if (reserved) name = `__${name}__`;
  const first = name.charCodeAt(0);
  if (first >= 48 && first <= 57) name = `key_${name}`;
  return /^_*$/.test(name) ? '' : name;
}
