/**
 * The sprig functions Loki exports to templates: string helpers, integer and float math
 * (floats computed in decimal, as sprig does), rounding, JSON decoding, dates and `default`.
 */
import { toFloat64, toInt64 } from './castValues.js';
import { decimalDiv, decimalProduct, decimalSub, decimalSum } from './decimal.js';
import { any, CallError, i, s, type FunctionRow } from './functionDef.js';
import { timeFromUnix, timeFromUnixNs } from './goTime.js';
import { formatTime } from './timeFormat.js';
import { parseTime } from './timeParse.js';
import { base64Encode, goTrimSpace, title, trimCutset } from './stringHelpers.js';
import type { GoTime, GoValue } from './values.js';
import { fromJsonValue, isTrue } from './values.js';

/** isEmpty is sprig's empty: the zero value of any type. */
function isEmpty(v: GoValue): boolean {
  return !isTrue(v);
}

/** dateArg converts what sprig's date accepts (a time or Unix seconds) to a time. */
function dateArg(v: GoValue): GoTime {
  if (v !== null && typeof v === 'object' && v.kind === 'time') return v;
  if (typeof v === 'bigint') return timeFromUnix(Number(v));
  return timeFromUnixNs(BigInt(Date.now()) * 1_000_000n);
}

/** intDivision divides or takes the remainder, failing on zero as Go's runtime does. */
function intDivision(a: bigint, b: bigint, op: 'div' | 'mod'): bigint {
  if (b === 0n) throw new CallError('runtime error: integer divide by zero');
  return op === 'div' ? a / b : a % b;
}

/** round is sprig's round: `places` decimals, rounding up from `roundOn`. */
function round(a: GoValue, places: bigint, roundOn: number): number {
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(places));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

/** SPRIG_FUNCTIONS are the sprig functions in Loki's function map. */
export const SPRIG_FUNCTIONS: readonly FunctionRow[] = [
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
];
