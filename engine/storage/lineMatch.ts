/**
 * Line filters applied where log lines are stored, for counts: a count whose pipeline is only
 * literal substring filters (`|= "text"`, `!= "text"`) needs to know which rows pass, not the
 * lines themselves. Every store keeps its lines as UTF-8 bytes end to end (segments, their
 * compressed blocks once inflated, head snapshot chunks), and a substring of a line is the same
 * substring of its bytes, so one native search over a run of rows finds the rows that contain
 * it without turning a single line into a string, as `grep -F` scans a file.
 */

/** LiteralLineFilter is `|= "text"` (negate false) or `!= "text"` (negate true); `bytes` is the text as UTF-8, never empty. */
export interface LiteralLineFilter {
  bytes: Buffer;
  negate: boolean;
}

/**
 * LineMatch is a count's line filters: `literals` must all hold for a row to count, and with
 * `none` no row does (`!= ""`). A store that holds lines as strings tests them with `test`,
 * which is the same filters as a predicate.
 */
export interface LineMatch {
  literals: readonly LiteralLineFilter[];
  none: boolean;
  test: (line: string) => boolean;
}

/** literalLineMatch builds a LineMatch from filters given as text; an empty `|=` text passes every line and is left out. */
export function literalLineMatch(filters: ReadonlyArray<{ text: string; negate: boolean }>): LineMatch {
  const literals: LiteralLineFilter[] = [];
  const tests: Array<(line: string) => boolean> = [];
  let never = false;
  for (const f of filters) {
    if (f.text === '') {
      // `|= ""` holds for every line, `!= ""` for none.
      if (f.negate) never = true;
      continue;
    }
    literals.push({ bytes: Buffer.from(f.text, 'utf8'), negate: f.negate });
    const text = f.text;
    tests.push(f.negate ? (line) => !line.includes(text) : (line) => line.includes(text));
  }
  if (never) return { literals: [], none: true, test: () => false };
  return { literals, none: false, test: (line) => tests.every((t) => t(line)) };
}

/**
 * RowBytes locates `count` consecutive rows in `text`: row k occupies
 * `text[start(k), end(k))` where end(k) = ends[endsAt + k] - base and start(k) is end(k - 1),
 * start(0) being 0. Stores keep either each row's end (segments' blocks) or an offsets array
 * with one more entry than rows (starts and ends), which is the same with `endsAt` one later.
 */
export interface RowBytes {
  text: Buffer;
  ends: ArrayLike<number>;
  endsAt: number;
  base: number;
  count: number;
}

/**
 * markContaining sets `hits[at + k]` to 1 for each row k of `rows` whose bytes contain `needle`.
 * The search runs over the rows' bytes as one buffer; a match that spans two rows belongs to
 * neither and the search goes on from its next byte.
 */
export function markContaining(rows: RowBytes, needle: Buffer, hits: Uint8Array, at: number): void {
  const { text, ends, endsAt, base, count } = rows;
  const length = needle.length;
  let row = 0;
  let pos = 0;
  for (;;) {
    const found = text.indexOf(needle, pos);
    if (found < 0) return;
    while (row < count && ends[endsAt + row] - base <= found) row++;
    if (row >= count) return;
    const rowEnd = ends[endsAt + row] - base;
    if (found + length <= rowEnd) {
      hits[at + row] = 1;
      pos = rowEnd;
      row++;
    } else {
      pos = found + 1;
    }
  }
}

/**
 * markContainingByOffsets is markContaining for a store that keeps one offsets array with one
 * more entry than rows (row i is `text[offsets[i], offsets[i + 1])`): it marks in `hits`
 * (offset 0 = row `from`) the rows of [from, end) that contain `needle`.
 */
export function markContainingByOffsets(text: Buffer, offsets: ArrayLike<number>, from: number, end: number, needle: Buffer, hits: Uint8Array): void {
  if (end <= from) return;
  const base = offsets[from];
  markContaining({ text: text.subarray(base, offsets[end]), ends: offsets, endsAt: from + 1, base, count: end - from }, needle, hits, 0);
}

/** RowMask is the rows of one store's window that pass a LineMatch: `passes[k]` is 1 for the window's k-th row if it does. */
export class RowMask {
  readonly passes: Uint8Array;
  private readonly found: Uint8Array;

  constructor(count: number) {
    this.passes = new Uint8Array(count).fill(1);
    this.found = new Uint8Array(count);
  }

  /**
   * apply narrows the mask by every literal of `match`, each searched with `search`, which marks
   * in the array it is given the rows containing the needle (offset 0 = row `from`).
   */
  apply(match: LineMatch, search: (needle: Buffer, hits: Uint8Array) => void): void {
    const { passes, found } = this;
    if (match.none) {
      passes.fill(0);
      return;
    }
    for (const literal of match.literals) {
      found.fill(0);
      search(literal.bytes, found);
      if (literal.negate) for (let i = 0; i < passes.length; i++) passes[i] &= found[i] ^ 1;
      else for (let i = 0; i < passes.length; i++) passes[i] &= found[i];
    }
  }
}
