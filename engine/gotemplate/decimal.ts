/**
 * Decimal arithmetic for the template functions addf, subf, mulf and divf, which Loki takes
 * from sprig, where they compute in decimal (shopspring/decimal) and only then convert to
 * float64: `addf 0.1 0.2` is 0.3, not 0.30000000000000004.
 */

/** Decimal is mantissa × 10^exponent. */
interface Decimal {
  mantissa: bigint;
  exponent: number;
}

/** DIVISION_PRECISION is the number of fraction digits a decimal division keeps (sprig's default). */
const DIVISION_PRECISION = 16;

function toDecimal(v: number): Decimal {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(v));
  if (m === null) return { mantissa: 0n, exponent: 0 };
  const frac = m[3] ?? '';
  const mantissa = BigInt(m[1] + m[2] + frac);
  return { mantissa, exponent: Number(m[4] ?? 0) - frac.length };
}

function toNumber(d: Decimal): number {
  return Number(`${d.mantissa}e${d.exponent}`);
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const e = Math.min(a.exponent, b.exponent);
  return [a.mantissa * 10n ** BigInt(a.exponent - e), b.mantissa * 10n ** BigInt(b.exponent - e), e];
}

function finite(values: readonly number[]): boolean {
  return values.every((v) => Number.isFinite(v));
}

/** decimalSum adds in decimal. */
export function decimalSum(values: readonly number[]): number {
  if (!finite(values)) return values.reduce((a, b) => a + b, 0);
  let acc: Decimal = { mantissa: 0n, exponent: 0 };
  for (const v of values) {
    const [x, y, e] = align(acc, toDecimal(v));
    acc = { mantissa: x + y, exponent: e };
  }
  return toNumber(acc);
}

/** decimalSub subtracts in decimal. */
export function decimalSub(a: number, b: number): number {
  if (!finite([a, b])) return a - b;
  const [x, y, e] = align(toDecimal(a), toDecimal(b));
  return toNumber({ mantissa: x - y, exponent: e });
}

/** decimalProduct multiplies in decimal. */
export function decimalProduct(values: readonly number[]): number {
  if (!finite(values)) return values.reduce((a, b) => a * b, 1);
  let acc: Decimal = { mantissa: 1n, exponent: 0 };
  for (const v of values) {
    const d = toDecimal(v);
    acc = { mantissa: acc.mantissa * d.mantissa, exponent: acc.exponent + d.exponent };
  }
  return toNumber(acc);
}

/** decimalDiv divides in decimal, keeping 16 fraction digits (rounded half away from zero). */
export function decimalDiv(a: number, b: number): number {
  if (!finite([a, b]) || b === 0) return a / b;
  const x = toDecimal(a);
  const y = toDecimal(b);
  // a/b = (mx/my) × 10^(ex-ey); scale so the quotient has DIVISION_PRECISION fraction digits.
  const shift = DIVISION_PRECISION + 1 + y.exponent - x.exponent;
  let num = x.mantissa;
  let den = y.mantissa;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  let q = num / den;
  const negative = q < 0n;
  if (negative) q = -q;
  q = (q + 5n) / 10n;
  return toNumber({ mantissa: negative ? -q : q, exponent: -DIVISION_PRECISION });
}
