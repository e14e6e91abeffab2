/**
 * String helpers shared by several template functions, each following the Go function it
 * stands for: strings.Trim and TrimSpace, url.QueryEscape and QueryUnescape, base64 with
 * Go's error text, strings.Title, and Loki's rune-aware alignment.
 */
import { quoteGoString } from '../common/quote.js';
import { CallError } from './functionDef.js';

/** trimCutset removes the runes of `cutset` from either end, as strings.Trim/TrimLeft/TrimRight. */
export function trimCutset(s: string, cutset: string, left: boolean, right: boolean): string {
  const cut = new Set([...cutset]);
  const chars = [...s];
  let start = 0;
  let end = chars.length;
  if (left) while (start < end && cut.has(chars[start])) start++;
  if (right) while (end > start && cut.has(chars[end - 1])) end--;
  return chars.slice(start, end).join('');
}

/** goTrimSpace is strings.TrimSpace: Unicode white space, U+0085 included. */
export function goTrimSpace(s: string): string {
  return s.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, '');
}

/** queryEscape is url.QueryEscape over the UTF-8 bytes (space becomes `+`). */
export function queryEscape(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (byte === 32) out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** queryUnescape is url.QueryUnescape, failing on a bad `%` escape with Go's message. */
export function queryUnescape(s: string): string {
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

/** base64Encode encodes the UTF-8 bytes with padding, as base64.StdEncoding. */
export function base64Encode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** base64Decode decodes as Loki's b64dec does: a failure yields Go's error text as the result. */
export function base64Decode(v: string): string {
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

/** title upper-cases the first letter of each word, as strings.Title. */
export function title(s: string): string {
  let out = '';
  let prevLetter = false;
  for (const ch of s) {
    const isWordChar = /[\p{L}\p{N}_']/u.test(ch);
    out += isWordChar && !prevLetter ? ch.toUpperCase() : ch;
    prevLetter = isWordChar;
  }
  return out;
}

/** runes splits a string into code points, as Go's []rune conversion. */
export function runes(s: string): string[] {
  return [...s];
}

/** align pads with spaces or cuts to `count` runes, on the right (left) or the left (right). */
export function align(count: bigint, src: string, left: boolean): string {
  const n = Number(count);
  const rs = runes(src);
  if (n < 0 || n === rs.length) return src;
  if (n > rs.length) return left ? src + ' '.repeat(n - rs.length) : ' '.repeat(n - rs.length) + src;
  return left ? rs.slice(0, n).join('') : rs.slice(rs.length - n).join('');
}
