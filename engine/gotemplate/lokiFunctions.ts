/**
 * Loki's own template helpers (pkg/logql/log/fmt.go): the Go strings functions it exposes
 * under their Go names, regex replacement and counting, URL coding, size and duration
 * parsing, Unix time conversions and alignment, plus the per-line `__line__` and
 * `__timestamp__`.
 */
import { quoteGoString } from '../common/quote.js';
import { compileRegex } from '../regex/index.js';
import type { Regex } from '../regex/index.js';
import { parseBytesValue, parseDurationValue } from '../logql/eval/conversions.js';
import { CallError, i, s, type FunctionRow } from './functionDef.js';
import { timeFromUnix, timeFromUnixNs, unixNanos } from './goTime.js';
import { parseTime } from './timeParse.js';
import { align, base64Decode, goTrimSpace, queryEscape, queryUnescape, runes, trimCutset } from './stringHelpers.js';
import type { GoTime } from './values.js';

const regexCache = new Map<string, Regex>();

/** regexFor compiles a pattern once; the cache is dropped whole when it grows past 256. */
function regexFor(pattern: string): Regex {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = compileRegex(pattern);
    } catch (err) {
      throw new CallError(`error parsing regexp: ${(err as Error).message}`);
    }
    if (regexCache.size > 256) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** countMatches counts non-overlapping matches as Go's FindAllStringIndex. */
function countMatches(re: Regex, s: string): number {
  let count = 0;
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    const m = re.execIndices(s, pos, 2);
    if (m === null) break;
    let accept = true;
    if (m[1] === m[0]) {
      if (m[0] === prevEnd) accept = false;
      pos = m[1] + 1;
    } else {
      pos = m[1];
    }
    prevEnd = m[1];
    if (accept) count++;
  }
  return count;
}

/** unixToTime reads Unix days, seconds, milliseconds, microseconds or nanoseconds by length, as Loki does. */
function unixToTime(epoch: string): GoTime {
  const i = parseGoIntDecimal(epoch);
  if (i === undefined) throw new CallError(`unable to parse time '${epoch}': strconv.ParseInt: parsing ${quoteGoString(epoch)}: invalid syntax`);
  switch (epoch.length) {
    case 5:
      return timeFromUnix(Number(i) * 86400);
    case 10:
      return timeFromUnix(Number(i));
    case 13:
      return timeFromUnixNs(i * 1_000_000n);
    case 16:
      return timeFromUnixNs(i * 1000n);
    case 19:
      return timeFromUnixNs(i);
    default:
      throw new CallError(`unable to parse time '${epoch}': <nil>`);
  }
}

/** parseGoIntDecimal is strconv.ParseInt(s, 10, 64) without its range check. */
function parseGoIntDecimal(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

/** LOKI_FUNCTIONS are the helpers Loki adds to the function map. */
export const LOKI_FUNCTIONS: readonly FunctionRow[] = [
  ['ToLower', { params: [s], call: ([v]) => (v as string).toLowerCase() }],
  ['ToUpper', { params: [s], call: ([v]) => (v as string).toUpperCase() }],
  [
    'Replace',
    {
      params: [s, s, s, i],
      call: ([src, old, repl, n]) => {
        let count = Number(n as bigint);
        const text = src as string;
        const from = old as string;
        if (count < 0) return from === '' ? runes(text).join(repl as string) : text.split(from).join(repl as string);
        let out = '';
        let rest = text;
        while (count > 0) {
          const at = rest.indexOf(from);
          if (at < 0) break;
          out += rest.slice(0, at) + (repl as string);
          rest = rest.slice(at + Math.max(from.length, 1));
          count--;
        }
        return out + rest;
      },
    },
  ],
  ['Trim', { params: [s, s], call: ([v, cut]) => trimCutset(v as string, cut as string, true, true) }],
  ['TrimLeft', { params: [s, s], call: ([v, cut]) => trimCutset(v as string, cut as string, true, false) }],
  ['TrimRight', { params: [s, s], call: ([v, cut]) => trimCutset(v as string, cut as string, false, true) }],
  ['TrimPrefix', { params: [s, s], call: ([v, p]) => ((v as string).startsWith(p as string) ? (v as string).slice((p as string).length) : v) }],
  ['TrimSuffix', { params: [s, s], call: ([v, p]) => ((v as string).endsWith(p as string) ? (v as string).slice(0, (v as string).length - (p as string).length) : v) }],
  ['TrimSpace', { params: [s], call: ([v]) => goTrimSpace(v as string) }],
  ['regexReplaceAll', { params: [s, s, s], call: ([re, v, repl]) => regexFor(re as string).replaceAll(v as string, repl as string) }],
  ['regexReplaceAllLiteral', { params: [s, s, s], call: ([re, v, repl]) => regexFor(re as string).replaceAll(v as string, (repl as string).replace(/\$/g, '$$$$')) }],
  ['count', { params: [s, s], call: ([re, v]) => BigInt(countMatches(regexFor(re as string), v as string)) }],
  ['urldecode', { params: [s], call: ([v]) => queryUnescape(v as string) }],
  ['urlencode', { params: [s], call: ([v]) => queryEscape(v as string) }],
  [
    'bytes',
    {
      params: [s],
      call: ([v]) => {
        const r = parseBytesValue(v as string);
        if (!r.ok) throw new CallError(r.message);
        return r.value;
      },
    },
  ],
  [
    'duration',
    {
      params: [s],
      call: ([v]) => {
        const r = parseDurationValue(v as string);
        if (!r.ok) throw new CallError(r.message);
        return r.value / 1e9;
      },
    },
  ],
  [
    'duration_seconds',
    {
      params: [s],
      call: ([v]) => {
        const r = parseDurationValue(v as string);
        if (!r.ok) throw new CallError(r.message);
        return r.value / 1e9;
      },
    },
  ],
  ['unixEpochMillis', { params: ['time'], call: ([t]) => (unixNanos(t as GoTime) / 1_000_000n).toString() }],
  ['unixEpochNanos', { params: ['time'], call: ([t]) => unixNanos(t as GoTime).toString() }],
  [
    'toDateInZone',
    {
      params: [s, s, s],
      call: ([layout, zone, v]) => parseTime(layout as string, v as string, zone as string) ?? timeFromUnix(-62135596800),
    },
  ],
  ['unixToTime', { params: [s], call: ([v]) => unixToTime(v as string) }],
  ['alignLeft', { params: [i, s], call: ([n, v]) => align(n as bigint, v as string, true) }],
  ['alignRight', { params: [i, s], call: ([n, v]) => align(n as bigint, v as string, false) }],
  ['b64dec', { params: [s], call: ([v]) => base64Decode(v as string) }],
];

/** PER_LINE_FUNCTIONS read the line being formatted; Loki adds them when it builds a template. */
export const PER_LINE_FUNCTIONS: readonly FunctionRow[] = [
  ['__line__', { params: [], call: (_args, ctx) => ctx.line() }],
  ['__timestamp__', { params: [], call: (_args, ctx) => timeFromUnixNs(ctx.timestampNs()) }],
];
