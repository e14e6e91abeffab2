/**
 * Text forms of binary OTLP fields: trace and span ids are hex (OTLP/JSON spells them that way
 * and so do Sluice tags), bytes attribute values are standard base64 (as OTLP/JSON and the
 * OpenTelemetry string form of a bytes value are).
 */

const HEX = '0123456789abcdef';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = buildBase64Values();

function buildBase64Values(): Int8Array {
  const values = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE64.length; i++) values[BASE64.charCodeAt(i)] = i;
  values['-'.charCodeAt(0)] = 62; // URL-safe alphabet, accepted as protojson does
  values['_'.charCodeAt(0)] = 63;
  return values;
}

const HEX_CODES = Array.from(HEX, (c) => c.charCodeAt(0));
/** hexScratch holds one plain array per output length used so far (ids are 16 or 8 bytes). */
const hexScratch = new Map<number, number[]>();

/** bytesToHexRange renders buf[start, end) as lowercase hex, building the string in one call. */
export function bytesToHexRange(buf: Uint8Array, start: number, end: number): string {
  const n = (end - start) * 2;
  if (n > 256) {
    let out = '';
    for (let i = start; i < end; i++) out += HEX[buf[i] >>> 4] + HEX[buf[i] & 15];
    return out;
  }
  let chars = hexScratch.get(n);
  if (chars === undefined) {
    chars = new Array<number>(n).fill(0);
    hexScratch.set(n, chars);
  }
  for (let i = start, k = 0; i < end; i++, k += 2) {
    chars[k] = HEX_CODES[buf[i] >>> 4];
    chars[k + 1] = HEX_CODES[buf[i] & 15];
  }
  return String.fromCharCode.apply(null, chars);
}

/** isAllZeroRange tells whether buf[start, end) is all zero, OTLP's "no trace/span id". */
export function isAllZeroRange(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 0) return false;
  return true;
}

/** bytesToBase64 renders bytes as padded standard base64. */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += BASE64[n >>> 18] + BASE64[(n >>> 12) & 63] + BASE64[(n >>> 6) & 63] + BASE64[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += BASE64[n >>> 18] + BASE64[(n >>> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += BASE64[n >>> 18] + BASE64[(n >>> 12) & 63] + BASE64[(n >>> 6) & 63] + '=';
  }
  return out;
}

/**
 * base64ToBytes decodes standard or URL-safe base64, padded or not, and returns undefined for
 * anything else.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (text.length - end > 2 || end % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? BASE64_VALUES[c] : -1;
    if (v < 0) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}
