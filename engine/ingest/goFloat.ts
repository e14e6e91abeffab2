/**
 * formatGoFloat renders a double the way Go's strconv.FormatFloat(v, 'f', -1, 64) does: the
 * shortest digits that read back to the same value, always in positional notation (never an
 * exponent), with `+Inf`, `-Inf` and `NaN` for the special values. Prometheus' OTLP
 * translator formats `le` and `quantile` label values, and OpenTelemetry stringifies double
 * attributes, this way, so series converted here match the ones those systems create.
 */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const sign = value < 0 ? '-' : '';
  const exp = Math.abs(value).toExponential();
  const eAt = exp.indexOf('e');
  const digits = exp.slice(0, eAt).replace('.', '');
  const exponent = Number(exp.slice(eAt + 1));
  const pointAt = exponent + 1;
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}
