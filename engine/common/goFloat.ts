/**
 * Floats read and written as Go's strconv reads and writes them. Prometheus and Loki put
 * strconv's output in label values (`le`, `quantile`, OTLP double attributes) and its error
 * text in messages users match on, so the spelling has to be Go's, not JavaScript's.
 */
import { quoteGoString } from './quote.js';

/** FloatParseResult is a parsed float, or the error strconv.ParseFloat would give. */
export type FloatParseResult = { ok: true; value: number } | { ok: false; message: string };

/**
 * formatGoFloat renders a double like strconv.FormatFloat(v, 'f', -1, 64): the shortest digits
 * that read back to the same value, always positional (never an exponent), with `+Inf`, `-Inf`,
 * `NaN` and `-0` for the special values.
 */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (Object.is(value, -0)) return '-0';
  const size = Math.abs(value);
  // Between these JavaScript already writes positionally, as Go does.
  if (size >= 1e-6 && size < 1e21) return '' + value;
  const shortest = String(value);
  // JavaScript switches to exponent form below 1e-6 and from 1e21; spell those out.
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest);
  if (match === null) return shortest;
  const [, sign, intPart, fracPart = '', expText] = match;
  const digits = intPart + fracPart;
  const pointAt = intPart.length + Number(expText);
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return sign + digits + '0'.repeat(pointAt - digits.length);
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

const DECIMAL_FLOAT = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?\d+)$/;

/**
 * parseGoFloatLiteral reads an unsigned numeric literal as strconv.ParseFloat does, which is
 * how Loki reads every number in a query: decimal with an optional exponent, or hexadecimal
 * with a mandatory `p` exponent (so `0x10` is an error). It takes no sign and no `Inf`/`NaN`
 * because the query lexers hand it the digits of one NUMBER token; the error quotes the text
 * as Go's %q of an ASCII token would. parseGoFloat is the whole function, for label values.
 */
export function parseGoFloatLiteral(text: string): FloatParseResult {
  let value: number | undefined;
  if (DECIMAL_FLOAT.test(text)) {
    value = Number(text);
  } else {
    const hex = HEX_FLOAT.exec(text);
    if (hex && !hex[0].includes('__')) {
      const intPart = hex[1].replace(/_/g, '');
      const fracPart = (hex[2] ?? '').replace(/_/g, '');
      if (intPart !== '' || fracPart !== '') {
        const mantissa = parseInt(intPart + fracPart || '0', 16);
        value = mantissa * Math.pow(2, Number(hex[3]) - 4 * fracPart.length);
      }
    }
  }
  if (value === undefined) {
    return { ok: false, message: `strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax` };
  }
  if (!Number.isFinite(value)) {
    return { ok: false, message: `strconv.ParseFloat: parsing ${JSON.stringify(text)}: value out of range` };
  }
  return { ok: true, value };
}

/**
 * plainInteger reads an optional sign and 1 to 15 decimal digits, nothing else, as an exact
 * number (-0 for `-0`, as Go gives), or undefined for any other text. Label values compared as
 * numbers (`| json | status >= 500`) are mostly such: read here, a line's comparison no
 * longer lowercases its text, tests two patterns and makes two results.
 */
function plainInteger(text: string): number | undefined {
  const n = text.length;
  let i = 0;
  let sign = 1;
  const first = text.charCodeAt(0);
  if (first === 43 || first === 45) {
    if (first === 45) sign = -1;
    i = 1;
  }
  if (n === i || n - i > 15) return undefined;
  let value = 0;
  for (; i < n; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return sign * value;
}

/**
 * plainIntegerAscii is plainInteger over the ASCII bytes [start, end): the same texts give the
 * same numbers, so a label value still held as bytes can be compared without its string.
 */
export function plainIntegerAscii(bytes: Uint8Array, start: number, end: number): number | undefined {
  let i = start;
  let sign = 1;
  const first = bytes[i];
  if (first === 43 || first === 45) {
    if (first === 45) sign = -1;
    i++;
  }
  if (end <= i || end - i > 15) return undefined;
  let value = 0;
  for (; i < end; i++) {
    const digit = bytes[i] - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return sign * value;
}

const SPECIAL_FLOATS: Record<string, number> = {
  inf: Infinity,
  infinity: Infinity,
  nan: NaN,
};

/**
 * parseGoFloat reads any text like strconv.ParseFloat(text, 64): an optional sign, then
 * `Inf`, `Infinity` or `NaN` in any case, or a literal as parseGoFloatLiteral reads it.
 * Label values (`le` bounds, LogQL conversions, template casts) come through here.
 */
export function parseGoFloat(text: string): FloatParseResult {
  const integer = plainInteger(text);
  if (integer !== undefined) return { ok: true, value: integer };
  let body = text;
  let sign = 1;
  if (body.startsWith('+') || body.startsWith('-')) {
    if (body[0] === '-') sign = -1;
    body = body.slice(1);
  }
  const special = SPECIAL_FLOATS[body.toLowerCase()];
  if (special !== undefined && body.length > 0) return { ok: true, value: sign * special };
  const parsed = parseGoFloatLiteral(body);
  if (parsed.ok) return { ok: true, value: sign * parsed.value };
  const kind = parsed.message.endsWith('value out of range') ? 'value out of range' : 'invalid syntax';
  return { ok: false, message: `strconv.ParseFloat: parsing ${quoteGoString(text)}: ${kind}` };
}
