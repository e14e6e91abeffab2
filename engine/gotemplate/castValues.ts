/**
 * Conversions of Go values to int64 and float64 as spf13/cast does them (what sprig's math
 * functions use): failures give 0 rather than an error.
 */
import { parseGoFloat } from '../common/goFloat.js';
import type { GoValue } from './values.js';

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
      const parsed = parseGoFloat(v);
      return parsed.ok ? parsed.value : 0;
    }
    default:
      return 0;
  }
}
