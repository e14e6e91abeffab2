/**
 * Go number literals in template actions: where one ends (sign, base prefix, digits with
 * underscores, fraction, exponent, imaginary suffix) for the lexer, and its value for the
 * parser, which rejects the forms Go's text/template rejects.
 */

/** scanTemplateNumber returns the end of a Go number literal (sign, base prefix, imaginary). */
export function scanTemplateNumber(input: string, start: number): number {
  let i = start;
  if (input[i] === '+' || input[i] === '-') i++;
  let digits = /[0-9_]/;
  let exponent = /[eE]/;
  if (input[i] === '0' && /[xXoObB]/.test(input[i + 1] ?? '')) {
    const base = input[i + 1].toLowerCase();
    digits = base === 'x' ? /[0-9a-fA-F_]/ : base === 'o' ? /[0-7_]/ : /[01_]/;
    exponent = base === 'x' ? /[pP]/ : /$^/;
    i += 2;
  }
  while (i < input.length && digits.test(input[i])) i++;
  if (input[i] === '.') {
    i++;
    while (i < input.length && digits.test(input[i])) i++;
  }
  if (exponent.test(input[i] ?? '')) {
    let j = i + 1;
    if (input[j] === '+' || input[j] === '-') j++;
    if (input[j] >= '0' && input[j] <= '9') {
      i = j;
      while (input[i] >= '0' && input[i] <= '9') i++;
    }
  }
  if (input[i] === 'i') i++;
  return i;
}

/** numberValue converts a template number literal; undefined when Go would reject it. */
/** numberValue converts a template number literal; undefined when Go would reject it. */
export function numberValue(text: string): number | undefined {
  let body = text.replace(/_/g, '');
  let sign = 1;
  if (body[0] === '+' || body[0] === '-') {
    if (body[0] === '-') sign = -1;
    body = body.slice(1);
  }
  if (body.endsWith('i')) return undefined;
  let value: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(body)) value = parseInt(body.slice(2), 16);
  else if (/^0[oO][0-7]+$/.test(body)) value = parseInt(body.slice(2), 8);
  else if (/^0[bB][01]+$/.test(body)) value = parseInt(body.slice(2), 2);
  else if (/^0[0-7]+$/.test(body)) value = parseInt(body.slice(1), 8);
  else if (/^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(body)) value = Number(body);
  else return undefined;
  return sign * value;
}
