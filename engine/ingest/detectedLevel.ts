/**
 * Loki's `detected_level`: the level Loki's distributor derives for a log entry so that
 * Grafana's log volume can split lines by severity even when no logger put a level label on
 * them. The rules follow Loki's (so the same lines get the same value):
 *
 * 1. a label or structured-metadata field named like a level (LOKI_LEVEL_FIELDS), its value
 *    normalized when known and kept as written otherwise;
 * 2. else the OTLP severity number carried as metadata;
 * 3. else the line: in a JSON object the first level-named string field within two levels of
 *    nesting, in a logfmt line the level-named key earliest in LOKI_LEVEL_FIELDS; a value that
 *    is not a known level falls through to
 * 4. keywords anywhere in the line (`info`, `[error]`, `warning`, `critical:`, `debug`...),
 *    in Loki's order, else `unknown`.
 *
 * Values are Loki's: trace, debug, info, warn, error, critical, fatal, unknown. Every step is
 * one linear pass over the line, so ingest stays bounded whatever the line holds.
 */
import { LogfmtDecoder } from '../logql/eval/pipeline/logfmtDecoder.js';

/** LOKI_LEVEL_FIELDS are the names Loki reads a level from, in order of preference (dots as stored: `log.level` is `log_level`). */
export const LOKI_LEVEL_FIELDS = [
  'level',
  'LEVEL',
  'Level',
  'log.level',
  'severity',
  'SEVERITY',
  'Severity',
  'SeverityText',
  'lvl',
  'LVL',
  'Lvl',
  'severity_text',
  'Severity_Text',
  'SEVERITY_TEXT',
] as const;

/** DETECTED_LEVEL is the structured-metadata name Loki stores the derived level under. */
export const DETECTED_LEVEL = 'detected_level';

/** JSON_MAX_DEPTH is how many object levels a JSON line is searched (Loki's default of 2: the top object and its children). */
const JSON_MAX_DEPTH = 2;

const JSON_LEVEL_KEYS: ReadonlySet<string> = new Set(LOKI_LEVEL_FIELDS);
const LOGFMT_LEVEL_KEYS = LOKI_LEVEL_FIELDS.map((name) => name.toLowerCase());

const KNOWN_LEVELS: ReadonlyMap<string, string> = new Map([
  ['trace', 'trace'],
  ['trc', 'trace'],
  ['debug', 'debug'],
  ['dbg', 'debug'],
  ['info', 'info'],
  ['inf', 'info'],
  ['information', 'info'],
  ['warn', 'warn'],
  ['wrn', 'warn'],
  ['warning', 'warn'],
  ['error', 'error'],
  ['err', 'error'],
  ['critical', 'critical'],
  ['fatal', 'fatal'],
]);

/** knownLevel maps a level text (any case) to Loki's name for it, or undefined. */
function knownLevel(text: string): string | undefined {
  return KNOWN_LEVELS.get(text.toLowerCase());
}

/** normalizeDetectedLevel is Loki's normalization of a level taken from a label: known names in any case map to Loki's, others stay as written. */
export function normalizeDetectedLevel(text: string): string {
  return knownLevel(text) ?? text;
}

/**
 * levelField finds the first level-named field among `tags`, in LOKI_LEVEL_FIELDS order.
 * Names are compared in their stored form, where dots became underscores.
 */
export function levelField(tags: Readonly<Record<string, string>>): string | undefined {
  for (const name of LOKI_LEVEL_FIELDS) {
    const stored = name.replaceAll('.', '_');
    if (Object.hasOwn(tags, stored)) return tags[stored];
  }
  return undefined;
}

/** levelFromSeverityNumber maps an OTLP severity number carried as text, as Loki does (unparsable is info). */
function levelFromSeverityNumberText(text: string): string {
  if (!/^-?\d+$/.test(text.trim())) return 'info';
  const n = Number(text);
  if (n <= 0 || n > 24) return 'unknown';
  return ['trace', 'debug', 'info', 'warn', 'error', 'fatal'][Math.floor((n - 1) / 4)];
}

/**
 * detectLevel derives `detected_level` for an entry whose stream labels are `labels` and
 * whose structured metadata is `metadata` (both with stored names).
 */
export function detectLevel(labels: Readonly<Record<string, string>>, metadata: Readonly<Record<string, string>> | null, line: string): string {
  const fromLabel = levelField(labels) ?? (metadata === null ? undefined : levelField(metadata));
  if (fromLabel !== undefined) return normalizeDetectedLevel(fromLabel);
  const severityNumber = metadata?.severity_number;
  if (severityNumber !== undefined && severityNumber !== '') return levelFromSeverityNumberText(severityNumber);
  return levelFromLine(line);
}

/** levelFromLine reads a level from a JSON or logfmt field of the line, else from keywords in it. */
export function levelFromLine(line: string): string {
  let value: string | undefined;
  if (isJsonObjectLine(line)) value = jsonLevelField(line);
  else if (line.includes('=')) value = logfmtLevelField(line);
  else return levelFromKeywords(line);
  return (value === undefined ? undefined : knownLevel(value)) ?? levelFromKeywords(line);
}

/** isJsonObjectLine tells a line that looks like a JSON object: `{` first and `}` last, ignoring spaces. */
function isJsonObjectLine(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith('{') && trimmed.endsWith('}');
}

/** readJsonString returns the end (after the closing quote) of the string starting at `start`, or -1 if unterminated. */
function jsonStringEnd(line: string, start: number): number {
  for (let i = start + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22 /* " */) return i + 1;
  }
  return -1;
}

/** skipSpaces returns the first position at or after `i` that is not whitespace. */
function skipSpaces(line: string, i: number): number {
  while (i < line.length && (line[i] === ' ' || line[i] === '\t' || line[i] === '\n' || line[i] === '\r')) i++;
  return i;
}

/**
 * jsonLevelField scans a JSON line once for the first string member whose key is a level
 * field, in document order, inside objects at most JSON_MAX_DEPTH deep and not inside arrays
 * (Loki walks objects only). The value is returned as written, escapes included, as Loki's
 * parser returns it. A malformed line simply yields what was found before the damage.
 */
function jsonLevelField(line: string): string | undefined {
  // containers holds '{' or '[' for each open container.
  const containers: string[] = [];
  let objectDepth = 0;
  let arrays = 0;
  let i = skipSpaces(line, 0);
  while (i < line.length) {
    const c = line[i];
    if (c === '{' || c === '[') {
      containers.push(c);
      if (c === '{') objectDepth++;
      else arrays++;
      i++;
    } else if (c === '}' || c === ']') {
      const open = containers.pop();
      if (open === '{') objectDepth--;
      else if (open === '[') arrays--;
      i++;
    } else if (c === '"') {
      const end = jsonStringEnd(line, i);
      if (end < 0) return undefined;
      const afterKey = skipSpaces(line, end);
      const isKey = containers[containers.length - 1] === '{' && line[afterKey] === ':';
      if (!isKey) {
        i = end;
        continue;
      }
      const valueStart = skipSpaces(line, afterKey + 1);
      if (arrays === 0 && objectDepth <= JSON_MAX_DEPTH && line[valueStart] === '"' && JSON_LEVEL_KEYS.has(line.slice(i + 1, end - 1))) {
        const valueEnd = jsonStringEnd(line, valueStart);
        return valueEnd < 0 ? undefined : line.slice(valueStart + 1, valueEnd - 1);
      }
      i = valueStart;
    } else {
      i++;
    }
  }
  return undefined;
}

const logfmt = new LogfmtDecoder();

/**
 * logfmtLevelField reads the logfmt pairs of a line (with the LogQL parser's tokenizer) and
 * returns the value of the level key that comes first in LOKI_LEVEL_FIELDS, keys compared
 * without case. Malformed pairs are skipped, as Loki skips them.
 */
function logfmtLevelField(line: string): string | undefined {
  let best = LOGFMT_LEVEL_KEYS.length;
  let value: string | undefined;
  logfmt.reset(line);
  while (!logfmt.eol()) {
    if (!logfmt.scan()) continue;
    const rank = LOGFMT_LEVEL_KEYS.indexOf(logfmt.key.toLowerCase());
    if (rank < 0 || rank >= best) continue;
    best = rank;
    value = logfmt.value;
    if (rank === 0) break;
  }
  return value;
}

/**
 * KEYWORDS are Loki's line keywords per level, tried in this order; the first level with a
 * keyword in the line wins. (Loki also lists `info:` and `[info]`, which `info` already covers.)
 */
const KEYWORDS: ReadonlyArray<[string, readonly string[]]> = [
  ['info', ['info', 'INFO']],
  ['error', ['err:', 'ERR:', '[err]', '[ERR]', '[error]', '[ERROR]']],
  ['warn', ['warn:', 'WARN:', '[warn]', '[WARN]', 'warning', 'WARNING']],
  ['critical', ['critical:', 'CRITICAL:', '[critical]', '[CRITICAL]']],
  ['debug', ['debug', 'DEBUG']],
];

/** ANY_KEYWORD finds whether a line holds any keyword at all, one pass for the common line that holds none. */
const ANY_KEYWORD = new RegExp(KEYWORDS.flatMap(([, words]) => words.map((w) => w.replace(/[[\]]/g, '\\$&'))).join('|'));

/** levelFromKeywords is the last resort: a level keyword anywhere in the line, else unknown. */
export function levelFromKeywords(line: string): string {
  if (!ANY_KEYWORD.test(line)) return 'unknown';
  for (const [level, words] of KEYWORDS) {
    for (const word of words) if (line.includes(word)) return level;
  }
  return 'unknown';
}
