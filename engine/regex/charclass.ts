/**
 * Character classes as sorted lists of inclusive code point ranges `[lo0, hi0, lo1, hi1, ...]`.
 * Every class the parser builds ends up in this normal form (sorted, disjoint, non-adjacent),
 * so membership is a binary search and two classes compare equal element by element.
 */
import { foldOrbit, foldingCodePoints, MAX_FOLD, MIN_FOLD } from './casefold.js';

/** MAX_RUNE is the largest Unicode code point, the upper bound of every negated class. */
export const MAX_RUNE = 0x10ffff;

/** RangeList is a class in normal form; see the module comment. */
export type RangeList = number[];

/** ANY_RANGES matches every code point (lone surrogates included, as single code points). */
export const ANY_RANGES: readonly number[] = [0, MAX_RUNE];

/** ANY_NOT_NL_RANGES is `.` without the `s` flag: everything except `\n`. */
export const ANY_NOT_NL_RANGES: readonly number[] = [0, 9, 11, MAX_RUNE];

/**
 * normalizeRanges sorts and merges overlapping or abutting ranges. Input pairs may be in any
 * order; the result is a fresh array in normal form.
 */
export function normalizeRanges(pairs: readonly number[]): RangeList {
  const count = pairs.length >> 1;
  if (count === 0) return [];
  const order = new Array<number>(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => pairs[2 * a] - pairs[2 * b] || pairs[2 * b + 1] - pairs[2 * a + 1]);
  const out: RangeList = [];
  for (const idx of order) {
    const lo = pairs[2 * idx];
    const hi = pairs[2 * idx + 1];
    const n = out.length;
    if (n > 0 && lo <= out[n - 1] + 1) {
      if (hi > out[n - 1]) out[n - 1] = hi;
    } else {
      out.push(lo, hi);
    }
  }
  return out;
}

/** negateRanges returns the complement of a normalized class within [0, MAX_RUNE]. */
export function negateRanges(ranges: readonly number[]): RangeList {
  const out: RangeList = [];
  let nextLo = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i] > nextLo) out.push(nextLo, ranges[i] - 1);
    nextLo = ranges[i + 1] + 1;
  }
  if (nextLo <= MAX_RUNE) out.push(nextLo, MAX_RUNE);
  return out;
}

/** rangesContain reports whether code point `cp` is in the normalized class. */
export function rangesContain(ranges: ArrayLike<number>, cp: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[2 * mid]) hi = mid - 1;
    else if (cp > ranges[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** rangesEqual compares two normalized classes. */
export function rangesEqual(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** rangesSize counts the code points in a normalized class. */
export function rangesSize(ranges: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < ranges.length; i += 2) n += ranges[i + 1] - ranges[i] + 1;
  return n;
}

/**
 * foldRanges closes a normalized class under simple case folding, which is what `(?i)` means
 * for a class: `[a-c]` becomes `[A-Ca-c]`, `k` also gains the Kelvin sign. The ASCII-only case
 * avoids building the full Unicode orbit table.
 */
export function foldRanges(ranges: readonly number[]): RangeList {
  if (ranges.length === 0) return [];
  const last = ranges[ranges.length - 1];
  if (last < MIN_FOLD || ranges[0] > MAX_FOLD) return ranges.slice();
  if (ranges[0] <= MIN_FOLD && last >= MAX_FOLD && ranges.length === 2) return ranges.slice();
  const extra: number[] = ranges.slice();
  if (last < 0x80) {
    for (let i = 0; i < ranges.length; i += 2) {
      for (let cp = Math.max(ranges[i], MIN_FOLD); cp <= ranges[i + 1]; cp++) {
        const orbit = foldOrbit(cp);
        if (orbit !== undefined) for (const m of orbit) extra.push(m, m);
      }
    }
    return normalizeRanges(extra);
  }
  const folding = foldingCodePoints();
  for (let i = 0; i < folding.length; i++) {
    const cp = folding[i];
    if (!rangesContain(ranges, cp)) continue;
    const orbit = foldOrbit(cp);
    if (orbit !== undefined) for (const m of orbit) extra.push(m, m);
  }
  return normalizeRanges(extra);
}

/** singleCodePoint returns the one code point a class matches, or -1 when it matches several. */
export function singleCodePoint(ranges: readonly number[]): number {
  return ranges.length === 2 && ranges[0] === ranges[1] ? ranges[0] : -1;
}
