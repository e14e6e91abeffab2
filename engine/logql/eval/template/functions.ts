/**
 * The functions a LogQL template may call, implemented over Go values: text/template's
 * built-ins, Loki's own helpers and the sprig subset Loki exports (the names come from
 * engine/logql/template-functions.ts, which the parser checks calls against). Each entry
 * declares its parameter kinds so the executor converts and type-checks arguments as Go's
 * reflection-based calls do.
 */
import { compileRegex } from '../../../regex/index.js';
import type { Regex } from '../../../regex/index.js';
import { quoteGoString } from '../../../common/quote.js';
import { parseBytesValue, parseDurationValue, parseFloatValue } from '../conversions.js';
import { utf8Length } from '../utf8.js';
import { decimalDiv, decimalProduct, decimalSub, decimalSum } from './decimal.js';
import { printValue, sprint, sprintf, sprintln } from './gofmt.js';
import { formatTime, parseTime, timeFromUnix, timeFromUnixNs, unixNanos } from './gotime.js';
import type { GoTime, GoValue } from './values.js';
import { TemplateExecError, fromJsonValue, isTrue, typeName } from './values.js';

/** ParamKind is the Go type class a parameter accepts. */
export type ParamKind = 'string' | 'int' | 'float' | 'any' | 'time' | 'bool';

/** CallContext gives per-line functions their line and timestamp. */
export interface CallContext {
  line(): string;
  timestampNs(): bigint;
}

/** TemplateFunctionDef describes one callable. */
export interface TemplateFunctionDef {
  params: readonly ParamKind[];
  /** variadic is the kind of any further arguments, when the function takes them. */
  variadic?: ParamKind;
  call(args: GoValue[], ctx: CallContext): GoValue;
}

/** CallError is an error a function returns; the executor reports it as "error calling f: …". */
export class CallError extends Error {}

const regexCache = new Map<string, Regex>();

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

/** parseGoInt reads an integer like strconv.ParseInt(s, 0, 64); undefined when invalid. */
export function parseGoInt(text: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (m === null) return undefined;
  let body = m[2];
  if (body.includes('_')) {
    if (!/^0[xXoObB]/.test(body) || /__|_$/.test(body)) return undefined;
    body = body.replace(/_/g, '');
  }
  let value: bigint;
  if (/^0[oO]/.test(body)) value = BigInt('0o' + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) value = BigInt('0o' + body.slice(1));
  else value = BigInt(body);
  return m[1] === '-' ? -value : value;
}

/** toInt64 converts like spf13/cast's ToInt64 (what sprig's math uses); failures give 0. */
export function toInt64(v: GoValue): bigint {
  if (v === null) return 0n;
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      const trimmed = /^[+-]?\d+\.0*$/.test(v) ? v.replace(/\.0*$/, '') : v;
      return parseGoInt(trimmed) ?? 0n;
    }
    default:
      return 0n;
  }
}

/** toFloat64 converts like cast.ToFloat64; failures give 0. */
export function toFloat64(v: GoValue): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'bigint':
      return Number(v);
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const parsed = parseFloatValue(v);
      return parsed.ok ? parsed.value : 0;
    }
    default:
      return 0;
  }
}

function isEmpty(v: GoValue): boolean {
  return !isTrue(v);
}

function trimCutset(s: string, cutset: string, left: boolean, right: boolean): string {
  const cut = new Set([...cutset]);
  const chars = [...s];
  let start = 0;
  let end = chars.length;
  if (left) while (start < end && cut.has(chars[start])) start++;
  if (right) while (end > start && cut.has(chars[end - 1])) end--;
  return chars.slice(start, end).join('');
}

function goTrimSpace(s: string): string {
  return s.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, '');
}

function queryEscape(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (byte === 32) out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function queryUnescape(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
        throw new CallError(`invalid URL escape ${quoteGoString(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+') {
      bytes.push(32);
    } else {
      for (const b of new TextEncoder().encode(c)) bytes.push(b);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function base64Encode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function base64Decode(v: string): string {
  let text = v;
  const remainder = text.length % 4;
  if (remainder !== 0 && remainder !== 1) text += '='.repeat(4 - remainder);
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  if (bad !== null || text.length % 4 !== 0) {
    const at = bad !== null ? bad.index : text.length - (text.length % 4);
    return `illegal base64 data at input byte ${at}`;
  }
  try {
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  } catch {
    return 'illegal base64 data at input byte 0';
  }
}

function title(s: string): string {
  let out = '';
  let prevLetter = false;
  for (const ch of s) {
    const isWordChar = /[\p{L}\p{N}_']/u.test(ch);
    out += isWordChar && !prevLetter ? ch.toUpperCase() : ch;
    prevLetter = isWordChar;
  }
  return out;
}

function runes(s: string): string[] {
  return [...s];
}

function align(count: bigint, src: string, left: boolean): string {
  const n = Number(count);
  const rs = runes(src);
  if (n < 0 || n === rs.length) return src;
  if (n > rs.length) return left ? src + ' '.repeat(n - rs.length) : ' '.repeat(n - rs.length) + src;
  return left ? rs.slice(0, n).join('') : rs.slice(rs.length - n).join('');
}

/** dateArg converts what sprig's date accepts (a time or Unix seconds) to a time. */
function dateArg(v: GoValue): GoTime {
  if (v !== null && typeof v === 'object' && v.kind === 'time') return v;
  if (typeof v === 'bigint') return timeFromUnix(Number(v));
  return timeFromUnixNs(BigInt(Date.now()) * 1_000_000n);
}

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

function parseGoIntDecimal(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

function compareBasic(name: string, a: GoValue, b: GoValue): number {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka === undefined || kb === undefined) throw new CallError('invalid type for comparison');
  if (ka !== kb) throw new CallError('incompatible types for comparison');
  if (ka === 'bool') {
    if (name !== 'eq' && name !== 'ne') throw new CallError('invalid type for comparison');
    return a === b ? 0 : 1;
  }
  if (ka === 'int') return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
  if (ka === 'float') {
    const x = a as number;
    const y = b as number;
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  }
  const x = a as string;
  const y = b as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

function basicKind(v: GoValue): 'bool' | 'int' | 'float' | 'string' | undefined {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
    default:
      return undefined;
  }
}

function htmlEscape(s: string): string {
  return s.replace(/[&<>"'\u0000]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : c === "'" ? '&#39;' : '\ufffd',
  );
}

function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === '<') out += '\\u003C';
    else if (ch === '>') out += '\\u003E';
    else if (ch === '&') out += '\\u0026';
    else if (ch === '=') out += '\\u003D';
    else if (cp < 0x20) out += '\\u' + cp.toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out;
}

function indexValue(item: GoValue, indexes: readonly GoValue[]): GoValue {
  let v = item;
  for (const idx of indexes) {
    if (v !== null && typeof v === 'object' && v.kind === 'map') {
      if (typeof idx !== 'string') throw new CallError(`value has type ${typeName(idx)}; should be string`);
      v = v.entries.has(idx) ? (v.entries.get(idx) ?? null) : v.zero;
    } else if (v !== null && typeof v === 'object' && v.kind === 'slice') {
      if (typeof idx !== 'bigint') throw new CallError(`cannot index slice/array with type ${typeName(idx)}`);
      const i = Number(idx);
      if (i < 0 || i >= v.items.length) throw new CallError(`index out of range: ${i}`);
      v = v.items[i];
    } else if (typeof v === 'string') {
      if (typeof idx !== 'bigint') throw new CallError(`cannot index slice/array with type ${typeName(idx)}`);
      const bytes = new TextEncoder().encode(v);
      const i = Number(idx);
      if (i < 0 || i >= bytes.length) throw new CallError(`index out of range: ${i}`);
      v = BigInt(bytes[i]);
    } else {
      throw new CallError(`can't index item of type ${typeName(v)}`);
    }
  }
  return v;
}

function sliceValue(item: GoValue, indexes: readonly GoValue[]): GoValue {
  const bounds = indexes.map((x) => {
    if (typeof x !== 'bigint') throw new CallError(`cannot index slice/array with type ${typeName(x)}`);
    return Number(x);
  });
  if (typeof item === 'string') {
    if (bounds.length > 2) throw new CallError('cannot 3-index slice a string');
    const from = bounds[0] ?? 0;
    const to = bounds[1] ?? item.length;
    if (from < 0 || to > item.length || from > to) throw new CallError(`index out of range: ${to}`);
    return item.slice(from, to);
  }
  if (item !== null && typeof item === 'object' && item.kind === 'slice') {
    const from = bounds[0] ?? 0;
    const to = bounds[1] ?? item.items.length;
    if (from < 0 || to > item.items.length || from > to) throw new CallError(`index out of range: ${to}`);
    return { kind: 'slice', items: item.items.slice(from, to) };
  }
  throw new CallError(`can't slice item of type ${typeName(item)}`);
}

function lengthOf(v: GoValue): bigint {
  if (typeof v === 'string') return BigInt(utf8Length(v));
  if (v !== null && typeof v === 'object' && v.kind === 'map') return BigInt(v.entries.size);
  if (v !== null && typeof v === 'object' && v.kind === 'slice') return BigInt(v.items.length);
  throw new CallError(`len of type ${typeName(v)}`);
}

function intDivision(a: bigint, b: bigint, op: 'div' | 'mod'): bigint {
  if (b === 0n) throw new CallError('runtime error: integer divide by zero');
  return op === 'div' ? a / b : a % b;
}

function round(a: GoValue, places: bigint, roundOn: number): number {
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(places));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

const s = 'string' as const;
const i = 'int' as const;
const any = 'any' as const;

/** TEMPLATE_FUNCTION_DEFS maps every callable name to its implementation. */
export const TEMPLATE_FUNCTION_DEFS: ReadonlyMap<string, TemplateFunctionDef> = new Map<string, TemplateFunctionDef>([
  // Go built-ins (and/or are evaluated lazily by the executor).
  ['not', { params: [any], call: ([v]) => !isTrue(v) }],
  ['len', { params: [any], call: ([v]) => lengthOf(v) }],
  ['index', { params: [any], variadic: any, call: ([item, ...rest]) => indexValue(item, rest) }],
  ['slice', { params: [any], variadic: any, call: ([item, ...rest]) => sliceValue(item, rest) }],
  ['print', { params: [], variadic: any, call: (args) => sprint(args) }],
  ['println', { params: [], variadic: any, call: (args) => sprintln(args) }],
  ['printf', { params: [s], variadic: any, call: ([f, ...args]) => sprintf(f as string, args) }],
  ['html', { params: [], variadic: any, call: (args) => htmlEscape(sprint(args)) }],
  ['js', { params: [], variadic: any, call: (args) => jsEscape(sprint(args)) }],
  ['urlquery', { params: [], variadic: any, call: (args) => queryEscape(sprint(args)) }],
  [
    'eq',
    {
      params: [any],
      variadic: any,
      call: ([a, ...rest]) => {
        if (rest.length === 0) throw new CallError('missing argument for comparison');
        return rest.some((b) => compareBasic('eq', a, b) === 0);
      },
    },
  ],
  ['ne', { params: [any, any], call: ([a, b]) => compareBasic('ne', a, b) !== 0 }],
  ['lt', { params: [any, any], call: ([a, b]) => compareBasic('lt', a, b) < 0 }],
  ['le', { params: [any, any], call: ([a, b]) => compareBasic('le', a, b) <= 0 }],
  ['gt', { params: [any, any], call: ([a, b]) => compareBasic('gt', a, b) > 0 }],
  ['ge', { params: [any, any], call: ([a, b]) => compareBasic('ge', a, b) >= 0 }],
  [
    'call',
    {
      params: [any],
      variadic: any,
      call: ([fn]) => {
        throw new CallError(`non-function ${printValue(fn)} of type ${typeName(fn)}`);
      },
    },
  ],
  // Loki's helpers.
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
  // The sprig subset.
  ['b64enc', { params: [s], call: ([v]) => base64Encode(v as string) }],
  ['lower', { params: [s], call: ([v]) => (v as string).toLowerCase() }],
  ['upper', { params: [s], call: ([v]) => (v as string).toUpperCase() }],
  ['title', { params: [s], call: ([v]) => title(v as string) }],
  [
    'trunc',
    {
      params: [i, s],
      call: ([n, v]) => {
        const c = Number(n as bigint);
        const text = v as string;
        if (c < 0 && text.length + c > 0) return text.slice(text.length + c);
        if (c >= 0 && text.length > c) return text.slice(0, c);
        return text;
      },
    },
  ],
  [
    'substr',
    {
      params: [i, i, s],
      call: ([a, b, v]) => {
        const start = Number(a as bigint);
        const end = Number(b as bigint);
        const text = v as string;
        if (start < 0) return text.slice(0, end);
        if (end < 0 || end > text.length) return text.slice(start);
        return text.slice(start, end);
      },
    },
  ],
  ['contains', { params: [s, s], call: ([sub, v]) => (v as string).includes(sub as string) }],
  ['hasPrefix', { params: [s, s], call: ([p, v]) => (v as string).startsWith(p as string) }],
  ['hasSuffix', { params: [s, s], call: ([p, v]) => (v as string).endsWith(p as string) }],
  [
    'indent',
    {
      params: [i, s],
      call: ([n, v]) => {
        const padding = ' '.repeat(Math.max(0, Number(n as bigint)));
        return padding + (v as string).replace(/\n/g, '\n' + padding);
      },
    },
  ],
  [
    'nindent',
    {
      params: [i, s],
      call: ([n, v]) => {
        const padding = ' '.repeat(Math.max(0, Number(n as bigint)));
        return '\n' + padding + (v as string).replace(/\n/g, '\n' + padding);
      },
    },
  ],
  ['replace', { params: [s, s, s], call: ([old, repl, src]) => (src as string).split(old as string).join(repl as string) }],
  [
    'repeat',
    {
      params: [i, s],
      call: ([n, v]) => {
        const c = Number(n as bigint);
        if (c < 0) throw new CallError('strings: negative Repeat count');
        return (v as string).repeat(c);
      },
    },
  ],
  ['trim', { params: [s], call: ([v]) => goTrimSpace(v as string) }],
  ['trimAll', { params: [s, s], call: ([cut, v]) => trimCutset(v as string, cut as string, true, true) }],
  ['trimSuffix', { params: [s, s], call: ([p, v]) => ((v as string).endsWith(p as string) ? (v as string).slice(0, (v as string).length - (p as string).length) : v) }],
  ['trimPrefix', { params: [s, s], call: ([p, v]) => ((v as string).startsWith(p as string) ? (v as string).slice((p as string).length) : v) }],
  ['int', { params: [any], call: ([v]) => toInt64(v) }],
  ['float64', { params: [any], call: ([v]) => toFloat64(v) }],
  ['add', { params: [], variadic: any, call: (args) => args.reduce<bigint>((a, v) => a + toInt64(v), 0n) }],
  ['sub', { params: [any, any], call: ([a, b]) => toInt64(a) - toInt64(b) }],
  ['mul', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<bigint>((acc, v) => acc * toInt64(v), toInt64(a)) }],
  ['div', { params: [any, any], call: ([a, b]) => intDivision(toInt64(a), toInt64(b), 'div') }],
  ['mod', { params: [any, any], call: ([a, b]) => intDivision(toInt64(a), toInt64(b), 'mod') }],
  ['addf', { params: [], variadic: any, call: (args) => decimalSum(args.map(toFloat64)) }],
  ['subf', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<number>((acc, v) => decimalSub(acc, toFloat64(v)), toFloat64(a)) }],
  ['mulf', { params: [any], variadic: any, call: ([a, ...rest]) => decimalProduct([toFloat64(a), ...rest.map(toFloat64)]) }],
  ['divf', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<number>((acc, v) => decimalDiv(acc, toFloat64(v)), toFloat64(a)) }],
  ['max', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<bigint>((m, v) => (toInt64(v) > m ? toInt64(v) : m), toInt64(a)) }],
  ['min', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<bigint>((m, v) => (toInt64(v) < m ? toInt64(v) : m), toInt64(a)) }],
  ['maxf', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<number>((m, v) => Math.max(m, toFloat64(v)), toFloat64(a)) }],
  ['minf', { params: [any], variadic: any, call: ([a, ...rest]) => rest.reduce<number>((m, v) => Math.min(m, toFloat64(v)), toFloat64(a)) }],
  ['ceil', { params: [any], call: ([v]) => Math.ceil(toFloat64(v)) }],
  ['floor', { params: [any], call: ([v]) => Math.floor(toFloat64(v)) }],
  ['round', { params: [any, i], variadic: 'float', call: ([a, p, on]) => round(a, p as bigint, on === undefined ? 0.5 : (on as number)) }],
  [
    'fromJson',
    {
      params: [s],
      call: ([v]) => {
        try {
          return fromJsonValue(JSON.parse(v as string));
        } catch {
          return null;
        }
      },
    },
  ],
  ['date', { params: [s, any], call: ([layout, d]) => formatTime(dateArg(d), layout as string) }],
  ['toDate', { params: [s, s], call: ([layout, v]) => parseTime(layout as string, v as string) ?? timeFromUnix(-62135596800) }],
  ['now', { params: [], call: () => timeFromUnixNs(BigInt(Date.now()) * 1_000_000n) }],
  ['unixEpoch', { params: ['time'], call: ([t]) => String((t as GoTime).sec) }],
  ['default', { params: [any], variadic: any, call: ([d, ...given]) => (given.length === 0 || isEmpty(given[0]) ? d : given[0]) }],
  // Per-line functions.
  ['__line__', { params: [], call: (_args, ctx) => ctx.line() }],
  ['__timestamp__', { params: [], call: (_args, ctx) => timeFromUnixNs(ctx.timestampNs()) }],
]);
