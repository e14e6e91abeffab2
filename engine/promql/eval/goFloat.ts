/**
 * Go's `%g` rendering of floats. Prometheus embeds `%g` values in annotations ("quantile value
 * should be between 0 and 1, got 1.5"), and users compare our messages with Prometheus' own, so
 * the spelling has to match: shortest digits, exponent form outside [1e-4, 1e6) for the
 * shortest form and outside [1e-4, 10^precision) otherwise, at least two exponent digits.
 */

/** decimalDigits splits a finite non-zero |value| into significant digits and a decimal point position. */
function decimalDigits(value: number, precision: number): { digits: string; pointAt: number } {
  const text = precision < 0 ? Math.abs(value).toExponential() : Math.abs(value).toExponential(Math.max(precision - 1, 0));
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return { digits: '0', pointAt: 1 };
  let digits = match[1] + (match[2] ?? '');
  if (precision < 0) digits = digits.replace(/0+$/, '') || '0';
  return { digits, pointAt: Number(match[3]) + 1 };
}

/**
 * formatGoG renders `value` like Go's fmt `%g` (precision -1, the shortest form) or `%.Ng`
 * (precision N): `1e+06`, `0.5`, `NaN`, `+Inf`.
 */
export function formatGoG(value: number, precision = -1): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (value === 0) return `${sign}0`;
  const prec = precision === 0 ? 1 : precision;
  let { digits, pointAt } = decimalDigits(value, prec);
  let eprec = prec;
  if (eprec > digits.length && digits.length >= pointAt) eprec = digits.length;
  if (prec < 0) eprec = 6;
  const exp = pointAt - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec >= 0) digits = digits.replace(/0+$/, '') || '0';
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exp < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (prec >= 0) digits = digits.replace(/0+$/, '') || '0';
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return sign + digits + '0'.repeat(pointAt - digits.length);
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}
