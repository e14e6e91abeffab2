/**
 * Go's `%q` and `%#U` renderings of runes and strings. PromQL error messages embed them
 * ("unexpected character: '}'", "unknown escape sequence U+0063 'c'"), and users compare our
 * messages with Prometheus' own, so the spelling has to match.
 */
import { quoteGoString } from '../common/quote.js';

const RUNE_ESCAPES: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
  0x27: "\\'",
  0x5c: '\\\\',
};

/** isPrintableRune approximates Go's unicode.IsPrint: no controls, separators or lone surrogates. */
export function isPrintableRune(cp: number): boolean {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  if (cp === 0xfffe || cp === 0xffff || cp > 0x10ffff) return false;
  return !/^[\p{Zl}\p{Zp}\p{Cf}\p{Co}\p{Cn}]$/u.test(String.fromCodePoint(cp)) || cp === 0x20;
}

function hexEscape(cp: number): string {
  if (cp < 0x100) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** quoteGoRune renders a code point like Go's `%q` on a rune: `'x'`, `'\n'`, `'\x00'`. */
export function quoteGoRune(cp: number): string {
  if (cp < 0 || cp > 0x10ffff) cp = 0xfffd;
  const escaped = RUNE_ESCAPES[cp];
  if (escaped !== undefined) return `'${escaped}'`;
  if (isPrintableRune(cp)) return `'${String.fromCodePoint(cp)}'`;
  return `'${hexEscape(cp)}'`;
}

/** formatGoUnicode renders a code point like Go's `%#U`: `U+0063 'c'`, or `U+000A` alone. */
export function formatGoUnicode(cp: number): string {
  const hex = 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
  return isPrintableRune(cp) ? `${hex} '${String.fromCodePoint(cp)}'` : hex;
}

/** quoteGoTruncated renders Go's `%.Nq`: the first `maxRunes` characters, quoted. */
export function quoteGoTruncated(text: string, maxRunes: number): string {
  return quoteGoString(Array.from(text).slice(0, maxRunes).join(''));
}
