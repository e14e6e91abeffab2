/**
 * Simple case folding orbits, the equivalence classes `(?i)` matches under (Unicode
 * CaseFolding.txt, statuses C and S — the same relation Go's unicode.SimpleFold walks).
 * `k`, `K` and the Kelvin sign U+212A form one orbit; `ı` (dotless i) is alone in its own.
 *
 * The table is derived once from the JavaScript engine's own Unicode data instead of being
 * shipped: candidate pairs come from toLowerCase/toUpperCase, and every candidate orbit is
 * confirmed with a `/…/iu` RegExp, whose canonicalization is exactly simple case folding.
 * ASCII, by far the common case, is answered from a small fixed table without building it.
 */

/** MIN_FOLD is the smallest code point with a non-trivial folding orbit. */
export const MIN_FOLD = 0x41;
/** MAX_FOLD is the largest code point with a non-trivial folding orbit. */
export const MAX_FOLD = 0x1e943;

const KELVIN = 0x212a;
const LONG_S = 0x17f;

let orbits: Map<number, readonly number[]> | undefined;
let folding: Int32Array | undefined;

/** asciiOrbit answers foldOrbit for code points below 0x80 without the full table. */
function asciiOrbit(cp: number): readonly number[] | undefined {
  let upper: number;
  if (cp >= 0x41 && cp <= 0x5a) upper = cp;
  else if (cp >= 0x61 && cp <= 0x7a) upper = cp - 0x20;
  else return undefined;
  const lower = upper + 0x20;
  if (upper === 0x4b) return [upper, lower, KELVIN];
  if (upper === 0x53) return [upper, lower, LONG_S];
  return [upper, lower];
}

/** singleCodePointOf returns the code point of a one-character string, or -1. */
function singleCodePointOf(text: string): number {
  const cp = text.codePointAt(0);
  if (cp === undefined) return -1;
  return text.length === (cp > 0xffff ? 2 : 1) ? cp : -1;
}

/** buildOrbits derives every non-trivial orbit in [MIN_FOLD, MAX_FOLD]; see the module comment. */
function buildOrbits(): Map<number, readonly number[]> {
  const size = MAX_FOLD - MIN_FOLD + 1;
  const parent = new Int32Array(size);
  for (let i = 0; i < size; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  const linked = new Uint8Array(size);
  const link = (x: number, y: number): void => {
    const a = find(x - MIN_FOLD);
    const b = find(y - MIN_FOLD);
    if (a !== b) parent[a] = b;
    linked[x - MIN_FOLD] = 1;
    linked[y - MIN_FOLD] = 1;
  };
  // Characters whose full uppercase is several characters (ΐ and U+1FD3 both become Ϊ́) can
  // still fold together; pairing them by that uppercase string finds such candidates.
  const byMultiUpper = new Map<string, number>();
  for (let cp = MIN_FOLD; cp <= MAX_FOLD; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    for (const other of [lower, upper]) {
      if (other === ch) continue;
      const o = singleCodePointOf(other);
      if (o >= MIN_FOLD && o <= MAX_FOLD) link(cp, o);
    }
    if (upper.length > 2 || (upper.length === 2 && singleCodePointOf(upper) < 0)) {
      const seen = byMultiUpper.get(upper);
      if (seen === undefined) byMultiUpper.set(upper, cp);
      else link(seen, cp);
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < size; i++) {
    if (!linked[i]) continue;
    const root = find(i);
    let g = groups.get(root);
    if (g === undefined) groups.set(root, (g = []));
    g.push(i + MIN_FOLD);
  }
  const result = new Map<number, readonly number[]>();
  for (const members of groups.values()) {
    let pending = members;
    while (pending.length > 1) {
      const head = pending[0];
      const re = new RegExp(`^\\u{${head.toString(16)}}$`, 'iu');
      const same: number[] = [];
      const rest: number[] = [];
      for (const m of pending) (re.test(String.fromCodePoint(m)) ? same : rest).push(m);
      if (same.length > 1) {
        const orbit: readonly number[] = Object.freeze(same.slice().sort((x, y) => x - y));
        for (const m of orbit) result.set(m, orbit);
      }
      pending = rest;
    }
  }
  return result;
}

/**
 * foldOrbit returns the sorted orbit of `cp` under simple case folding (including `cp`), or
 * undefined when `cp` folds only to itself.
 */
export function foldOrbit(cp: number): readonly number[] | undefined {
  if (cp < 0x80) return asciiOrbit(cp);
  if (cp < MIN_FOLD || cp > MAX_FOLD) return undefined;
  if (orbits === undefined) orbits = buildOrbits();
  return orbits.get(cp);
}

/** foldingCodePoints lists, sorted, every code point with a non-trivial orbit. */
export function foldingCodePoints(): Int32Array {
  if (folding === undefined) {
    if (orbits === undefined) orbits = buildOrbits();
    folding = Int32Array.from(orbits.keys()).sort();
  }
  return folding;
}

/** foldsToItself reports whether `cp` has no case-folding partner, so `(?i)` leaves it alone. */
export function foldsToItself(cp: number): boolean {
  return foldOrbit(cp) === undefined;
}
