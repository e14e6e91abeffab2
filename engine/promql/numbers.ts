/**
 * Number literals as Prometheus reads them: integers in Go's base-prefix syntax
 * (`0x1f`, `0755` octal, `1_000`), then floats, with Go's error wording for values out of
 * range (printing is engine/common/goFloat.ts' formatGoFloat).
 */
import { quoteGoString } from '../common/quote.js';

/** NumberParse is a literal's value, or the reason it has none. */
export type NumberParse = { ok: true; value: number } | { ok: false; message: string };

const INT64_MAX = (1n << 63n) - 1n;

/** parseIntegerText reads `text` like Go's strconv.ParseInt(text, 0, 64); undefined if it cannot. */
function parseIntegerText(text: string): number | undefined {
  let digits: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) digits = BigInt(text);
  else if (/^0[0-7]+$/.test(text)) digits = BigInt('0o' + text.slice(1));
  else if (/^[0-9]+$/.test(text)) digits = BigInt(text);
  else return undefined;
  return digits > INT64_MAX ? undefined : Number(digits);
}

/**
 * parseNumberText converts a NUMBER token's text (already shape-checked by the lexer) to its
 * value: first as an integer, as Prometheus does, then as a float.
 */
export function parseNumberText(text: string): NumberParse {
  const lower = text.toLowerCase();
  if (lower === 'inf') return { ok: true, value: Infinity };
  if (lower === 'nan') return { ok: true, value: NaN };
  const plain = text.replaceAll('_', '');
  const integer = parseIntegerText(plain);
  if (integer !== undefined) return { ok: true, value: integer };
  const failure = (reason: string): NumberParse => ({
    ok: false,
    message: `error parsing number: strconv.ParseFloat: parsing ${quoteGoString(text)}: ${reason}`,
  });
  if (/^0[xX]/.test(plain) || !/^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(plain)) return failure('invalid syntax');
  const value = Number(plain);
  if (!Number.isFinite(value)) return failure('value out of range');
  return { ok: true, value };
}
