import { decodeGoBytes, escapedByte } from './goBytes.js';

/**
 * unquoteGoString decodes a string literal the way Go's strconv.Unquote does, which is what
 * both PromQL and LogQL use: double quotes and single quotes interpret escapes, backticks are
 * raw. Returns the decoded value, or an error message with the offset (relative to the start of
 * `literal`) of the bad escape so a parser can report a precise position.
 *
 * `\x` and octal escapes are bytes, as in Go: consecutive ones that form valid UTF-8 are that
 * text (`"\xc3\xa9"` is "é"), and bytes that do not are kept as the code units goBytes.ts
 * describes, so checks for valid UTF-8 fail on them as Go's do.
 */
export type UnquoteResult =
  | { ok: true; value: string }
  | { ok: false; message: string; offset: number };

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

function isHex(c: string): boolean {
  return /^[0-9a-fA-F]$/.test(c);
}

export function unquoteGoString(literal: string): UnquoteResult {
  const q = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== q) {
    return { ok: false, message: 'unterminated quoted string', offset: 0 };
  }
  const body = literal.slice(1, -1);
  if (q === '`') {
    return { ok: true, value: body };
  }
  if (q !== '"' && q !== "'") {
    return { ok: false, message: `invalid quote character ${q}`, offset: 0 };
  }
  let out = '';
  // Bytes of a run of \x or octal escapes, decoded together once the run ends: a character
  // written out or as \u always starts a new UTF-8 sequence, so it can never complete them.
  let bytes: number[] = [];
  const flushBytes = (): void => {
    if (bytes.length === 0) return;
    out += decodeGoBytes(bytes);
    bytes = [];
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\n') return { ok: false, message: 'newline in string', offset: i + 1 };
    if (c === q) return { ok: false, message: `unexpected ${q} in string`, offset: i + 1 };
    if (c !== '\\') {
      flushBytes();
      out += c;
      continue;
    }
    const escStart = i + 1;
    const e = body[++i];
    if (e === undefined) return { ok: false, message: 'escape sequence not terminated', offset: escStart };
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      flushBytes();
      out += simple;
      continue;
    }
    if (e === '"' || e === "'") {
      if (e !== q) return { ok: false, message: `unknown escape sequence \\${e}`, offset: escStart };
      flushBytes();
      out += e;
      continue;
    }
    let digits = 0;
    let base = 16;
    if (e === 'x') digits = 2;
    else if (e === 'u') digits = 4;
    else if (e === 'U') digits = 8;
    else if (e >= '0' && e <= '7') {
      digits = 3;
      base = 8;
      i--;
    } else return { ok: false, message: `unknown escape sequence \\${e}`, offset: escStart };
    const hex = body.slice(i + 1, i + 1 + digits);
    const valid = hex.length === digits && [...hex].every((d) => (base === 16 ? isHex(d) : d >= '0' && d <= '7'));
    if (!valid) return { ok: false, message: 'invalid escape sequence', offset: escStart };
    const code = parseInt(hex, base);
    i += digits;
    if (e === 'x' || base === 8) {
      if (code > 255) return { ok: false, message: 'octal escape value > 255', offset: escStart };
      bytes.push(code);
    } else {
      if (code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) {
        return { ok: false, message: 'invalid Unicode code point in escape sequence', offset: escStart };
      }
      flushBytes();
      out += String.fromCodePoint(code);
    }
  }
  flushBytes();
  return { ok: true, value: out };
}

/**
 * quoteGoString renders `value` as a double-quoted literal that unquoteGoString reads back; a
 * byte that is not valid UTF-8 prints as `\xNN`, as Go's %q prints it.
 */
export function quoteGoString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    const byte = escapedByte(cp);
    if (byte !== undefined) out += '\\x' + byte.toString(16);
    else if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}
