/**
 * Go's fmt formatting for template output: `%v` printing of every value kind, Sprint and
 * Sprintln spacing, and a Printf covering the verbs, flags, widths and precisions templates
 * use, with Go's `%!verb(type=value)` markers for mismatches.
 */
import { formatGoFixed, formatGoG } from '../common/goFormat.js';
import { quoteGoString } from '../common/quote.js';
import { formatTimeString } from './timeFormat.js';
import type { GoValue } from './values.js';
import { typeName } from './values.js';

/** digitsOf returns the shortest (or `precision`-digit) decimal digits and point position of |v|. */
function digitsOf(v: number, precision: number): { digits: string; pointAt: number } {
  const text = precision < 0 ? Math.abs(v).toExponential() : Math.abs(v).toExponential(Math.max(precision - 1, 0));
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (m === null) return { digits: '0', pointAt: 1 };
  return { digits: m[1] + (m[2] ?? ''), pointAt: Number(m[3]) + 1 };
}

function specialFloat(v: number, plus: boolean): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return plus ? '+Inf' : '+Inf';
  if (v === -Infinity) return '-Inf';
  return undefined;
}

function expSuffix(exp: number): string {
  const sign = exp < 0 ? '-' : '+';
  return `e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** formatE renders %e with `precision` fraction digits (-1: shortest). */
export function formatE(v: number, precision: number): string {
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  if (v === 0) return `${sign}0${precision > 0 ? '.' + '0'.repeat(precision) : precision < 0 ? '' : ''}e+00`;
  const { digits, pointAt } = digitsOf(v, precision < 0 ? -1 : precision + 1);
  const frac = digits.slice(1);
  return `${sign}${digits[0]}${frac.length > 0 ? '.' + frac : ''}${expSuffix(pointAt - 1)}`;
}

/** formatFloatV prints a float64 as %v does. */
export function formatFloatV(v: number): string {
  return formatGoG(v);
}

/** printValue renders any value as fmt's %v. */
export function printValue(v: GoValue): string {
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return formatFloatV(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v.kind === 'time') return formatTimeString(v);
      if (v.kind === 'slice') return `[${v.items.map(printValue).join(' ')}]`;
      return `map[${[...v.entries.keys()]
        .sort()
        .map((k) => `${k}:${printValue(v.entries.get(k) ?? null)}`)
        .join(' ')}]`;
  }
}

/** sprint is fmt.Sprint: operands joined, with a space between two that are not strings. */
export function sprint(args: readonly GoValue[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0 && typeof args[i] !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += printValue(args[i]);
  }
  return out;
}

/** sprintln is fmt.Sprintln: operands joined by spaces, then a newline. */
export function sprintln(args: readonly GoValue[]): string {
  return args.map(printValue).join(' ') + '\n';
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number;
  precision: number;
}

function runeLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  const len = runeLength(s);
  if (spec.width <= len) return s;
  const fill = spec.width - len;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && numeric) {
    const signed = s[0] === '-' || s[0] === '+' || s[0] === ' ';
    return signed ? s[0] + '0'.repeat(fill) + s.slice(1) : '0'.repeat(fill) + s;
  }
  return ' '.repeat(fill) + s;
}

function signed(body: string, negative: boolean, spec: Spec): string {
  if (negative) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

function badVerb(verb: string, arg: GoValue): string {
  if (arg === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(arg)}=${printValue(arg)})`;
}

function quoteRune(cp: number): string {
  if (cp === 39) return "'\\''";
  const q = quoteGoString(String.fromCodePoint(cp));
  return `'${q.slice(1, -1).replace(/\\"/g, '"')}'`;
}

function formatInteger(n: bigint, verb: string, spec: Spec): string | undefined {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  let body: string;
  switch (verb) {
    case 'd':
    case 'v':
      body = abs.toString(10);
      break;
    case 'x':
      body = (spec.sharp ? '0x' : '') + abs.toString(16);
      break;
    case 'X':
      body = (spec.sharp ? '0X' : '') + abs.toString(16).toUpperCase();
      break;
    case 'o':
      body = (spec.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'O':
      body = '0o' + abs.toString(8);
      break;
    case 'b':
      body = abs.toString(2);
      break;
    case 'c':
      return pad(String.fromCodePoint(Number(n)), spec, false);
    case 'q':
      return pad(quoteRune(Number(n)), spec, false);
    case 'U':
      return pad('U+' + abs.toString(16).toUpperCase().padStart(4, '0'), spec, false);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return undefined;
    default:
      return undefined;
  }
  if (spec.precision >= 0) {
    const digitsStart = body.startsWith('0x') || body.startsWith('0X') || body.startsWith('0o') ? 2 : 0;
    const digits = body.slice(digitsStart);
    if (digits.length < spec.precision) body = body.slice(0, digitsStart) + digits.padStart(spec.precision, '0');
    if (spec.precision === 0 && abs === 0n) body = '';
  }
  return pad(signed(body, negative, spec), { ...spec, zero: spec.zero && spec.precision < 0 }, true);
}

function formatFloatVerb(v: number, verb: string, spec: Spec): string | undefined {
  const special = specialFloat(v, spec.plus);
  if (special !== undefined) {
    let s = special;
    if (s === '+Inf' && !spec.plus) s = spec.space ? ' Inf' : '+Inf';
    return pad(s, { ...spec, zero: false }, false);
  }
  let body: string;
  switch (verb) {
    case 'v':
    case 'g':
      body = formatGoG(v, spec.precision);
      break;
    case 'G':
      body = formatGoG(v, spec.precision).toUpperCase();
      break;
    case 'e':
      body = formatE(v, spec.precision < 0 ? 6 : spec.precision);
      break;
    case 'E':
      body = formatE(v, spec.precision < 0 ? 6 : spec.precision).toUpperCase();
      break;
    case 'f':
    case 'F':
      body = formatGoFixed(v, spec.precision < 0 ? 6 : spec.precision);
      break;
    default:
      return undefined;
  }
  const negative = body.startsWith('-');
  return pad(signed(negative ? body.slice(1) : body, negative, spec), spec, true);
}

function formatString(s: string, verb: string, spec: Spec): string | undefined {
  let text = s;
  switch (verb) {
    case 'v':
    case 's':
      if (spec.precision >= 0) text = [...s].slice(0, spec.precision).join('');
      return pad(text, spec, false);
    case 'q':
      return pad(spec.sharp && !s.includes('`') ? '`' + s + '`' : quoteGoString(s), spec, false);
    case 'x':
    case 'X': {
      const bytes = new TextEncoder().encode(s);
      let hex = '';
      for (const b of bytes) hex += b.toString(16).padStart(2, '0');
      return pad(verb === 'X' ? hex.toUpperCase() : hex, spec, false);
    }
    default:
      return undefined;
  }
}

function formatArg(arg: GoValue, verb: string, spec: Spec): string {
  let out: string | undefined;
  if (arg === null) {
    out = verb === 'v' || verb === 's' ? pad(verb === 'v' ? '<nil>' : '%!s(<nil>)', spec, false) : undefined;
  } else if (typeof arg === 'bigint') {
    out = formatInteger(arg, verb, spec);
  } else if (typeof arg === 'number') {
    out = formatFloatVerb(arg, verb, spec);
  } else if (typeof arg === 'string') {
    out = formatString(arg, verb, spec);
  } else if (typeof arg === 'boolean') {
    out = verb === 'v' || verb === 't' ? pad(arg ? 'true' : 'false', spec, false) : undefined;
  } else if (verb === 'v' || verb === 's') {
    out = pad(printValue(arg), spec, false);
  }
  return out ?? badVerb(verb, arg);
}

/** sprintf is fmt.Sprintf over template values. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  const n = format.length;
  while (i < n) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: 0, precision: -1 };
    for (; i < n; i++) {
      const c = format[i];
      if (c === '-') spec.minus = true;
      else if (c === '+') spec.plus = true;
      else if (c === '#') spec.sharp = true;
      else if (c === ' ') spec.space = true;
      else if (c === '0') spec.zero = !spec.minus;
      else break;
    }
    if (format[i] === '*') {
      const w = args[argIndex++];
      spec.width = typeof w === 'bigint' ? Number(w) : 0;
      if (spec.width < 0) {
        spec.minus = true;
        spec.width = -spec.width;
      }
      i++;
    } else {
      while (i < n && format[i] >= '0' && format[i] <= '9') spec.width = spec.width * 10 + Number(format[i++]);
    }
    if (format[i] === '.') {
      i++;
      spec.precision = 0;
      if (format[i] === '*') {
        const p = args[argIndex++];
        spec.precision = typeof p === 'bigint' ? Number(p) : 0;
        i++;
      } else {
        while (i < n && format[i] >= '0' && format[i] <= '9') spec.precision = spec.precision * 10 + Number(format[i++]);
      }
    }
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatArg(args[argIndex++], verb, spec);
  }
  if (argIndex < args.length) {
    const extra = args.slice(argIndex).map((a) => (a === null ? '<nil>' : `${typeName(a)}=${printValue(a)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}
