/**
 * naturalLess orders strings "naturally", as sort_by_label does in Prometheus: digit runs
 * compare as numbers (`a2` before `a10`), other runs as text. A string that is a prefix of the
 * other in chunks sorts first; equal strings are not less.
 */
export function naturalLess(a: string, b: string): boolean {
  const ca = chunks(a);
  const cb = chunks(b);
  for (let i = 0; i < ca.length; i++) {
    if (i >= cb.length) return false;
    const x = ca[i];
    const y = cb[i];
    const bothNumeric = isDigits(x) && isDigits(y);
    if (bothNumeric ? numericEqual(x, y) : x === y) {
      if (i === ca.length - 1) return true;
      if (i === cb.length - 1) return false;
      continue;
    }
    return bothNumeric ? numericLess(x, y) : x < y;
  }
  return false;
}

/** chunks splits a string into alternating runs of digits and non-digits. */
function chunks(s: string): string[] {
  return s.match(/\d+|\D+/g) ?? [];
}

function isDigits(s: string): boolean {
  return /^\d+$/.test(s);
}

/** stripZeros removes leading zeros so digit runs compare by value at any length. */
function stripZeros(s: string): string {
  const t = s.replace(/^0+/, '');
  return t === '' ? '0' : t;
}

function numericEqual(a: string, b: string): boolean {
  return stripZeros(a) === stripZeros(b);
}

function numericLess(a: string, b: string): boolean {
  const x = stripZeros(a);
  const y = stripZeros(b);
  return x.length !== y.length ? x.length < y.length : x < y;
}
