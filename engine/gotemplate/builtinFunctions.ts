/**
 * text/template's own built-in functions: comparison, indexing, slicing, length, printing
 * and escaping. `and` and `or` are listed so the name list is complete; the executor
 * evaluates their arguments lazily itself, as Go does, instead of calling them.
 */
import { utf8ByteLength } from '../common/utf8.js';
import { any, CallError, s, type FunctionRow } from './functionDef.js';
import { printValue, sprint, sprintf, sprintln } from './print.js';
import { queryEscape } from './stringHelpers.js';
import type { GoValue } from './values.js';
import { isTrue, typeName } from './values.js';

/** compareBasic orders two basic values of one kind, failing as Go's eq/lt do otherwise. */
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

/** basicKind is the comparison class of a value; undefined when it is not comparable. */
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

/** htmlEscape is template.HTMLEscapeString. */
function htmlEscape(s: string): string {
  return s.replace(/[&<>"'\u0000]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : c === "'" ? '&#39;' : '\ufffd',
  );
}

/** jsEscape is template.JSEscapeString. */
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

/** indexValue is `index`: maps by key, slices and strings (bytes) by position. */
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

/** sliceValue is `slice` over strings and slices. */
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

/** lengthOf is `len`: bytes of a string, entries of a map or slice. */
function lengthOf(v: GoValue): bigint {
  if (typeof v === 'string') return BigInt(utf8ByteLength(v));
  if (v !== null && typeof v === 'object' && v.kind === 'map') return BigInt(v.entries.size);
  if (v !== null && typeof v === 'object' && v.kind === 'slice') return BigInt(v.items.length);
  throw new CallError(`len of type ${typeName(v)}`);
}

/** firstDecisive is `and`/`or` over values already evaluated: the first that decides, else the last. */
function firstDecisive(args: readonly GoValue[], decidingTruth: boolean): GoValue {
  for (const v of args) if (isTrue(v) === decidingTruth) return v;
  return args[args.length - 1] ?? null;
}

/** BUILTIN_FUNCTIONS are always defined by text/template itself. */
export const BUILTIN_FUNCTIONS: readonly FunctionRow[] = [
  ['and', { params: [any], variadic: any, call: (args) => firstDecisive(args, false) }],
  ['or', { params: [any], variadic: any, call: (args) => firstDecisive(args, true) }],
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
];
