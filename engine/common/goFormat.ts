/**
 * Go's fmt verbs for floats: `%g` and `%f`. Prometheus and Loki embed such values in warnings
 * and errors ("quantile value should be between 0 and 1, got 1.5"), and templates print with
 * them, so users see Go's spelling. Both differ from strconv's shortest positional form
 * (formatGoFloat in goFloat.ts) on purpose: `%g` switches to an exponent with at least two
 * digits (`1e+06`), `%f` pads to a fixed number of decimals.
 */
import { formatGoFloat } from './goFloat.js';

/** specialGoFloat spells NaN and the infinities as every Go float verb does; undefined for finite values. */
function specialGoFloat(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return undefined;
}

/** decimalDigits splits a finite non-zero |value| into significant digits and a decimal point position. */
function decimalDigits(value: number, precision: number): { digits: string; pointAt: number } {
  const text = precision < 0 ? Math.abs(value).toExponential() : Math.abs(value).toExponential(Math.max(precision - 1, 0));
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return { digits: '0', pointAt: 1 };
  return { digits: match[1] + (match[2] ?? ''), pointAt: Number(match[3]) + 1 };
}

/**
 * formatGoG renders `value` like `%g` (precision -1, the shortest digits, also what `%v`
 * prints) or `%.Ng` (precision N significant digits): exponent form outside [1e-4, 1e6) for
 * the shortest form and outside [1e-4, 10^N) otherwise, trailing zeros dropped.
 */
export function formatGoG(value: number, precision = -1): string {
  const special = specialGoFloat(value);
  if (special !== undefined) return special;
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (value === 0) return `${sign}0`;
  const prec = precision === 0 ? 1 : precision;
  const { digits: allDigits, pointAt } = decimalDigits(value, prec);
  let eprec = prec;
  if (eprec > allDigits.length && allDigits.length >= pointAt) eprec = allDigits.length;
  if (prec < 0) eprec = 6;
  const exp = pointAt - 1;
  const digits = allDigits.replace(/0+$/, '') || '0';
  if (exp < -4 || exp >= eprec) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exp < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return sign + digits + '0'.repeat(pointAt - digits.length);
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/**
 * formatGoFixed renders `value` like `%f` (six decimals) or `%.Nf`; precision -1 gives the
 * shortest positional digits. Negative zero keeps its sign (`-0.000000`), as in Go.
 */
export function formatGoFixed(value: number, precision = 6): string {
  const special = specialGoFloat(value);
  if (special !== undefined) return special;
  if (precision < 0) return formatGoFloat(value);
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude < 1e21) return sign + magnitude.toFixed(precision);
  // toFixed switches to exponent form from 1e21; such floats are integers, printed exactly.
  return sign + BigInt(magnitude).toString() + (precision > 0 ? '.' + '0'.repeat(precision) : '');
}
