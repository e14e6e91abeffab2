/**
 * Line filters applied where log lines are stored, for counts: a count whose pipeline is only
 * literal substring filters (`|= "text"`, `!= "text"`) needs to know which rows pass, not the
 * lines themselves. Every store keeps its lines as UTF-8 bytes end to end (segments, their
 * compressed blocks once inflated, head snapshot chunks), and a substring of a line is the same
 * substring of its bytes, so one native search over a run of rows finds the rows that contain
 * it without turning a single line into a string, as `grep -F` scans a file.
 */

/**
 * LiteralLineFilter is `|= "a" or "b"` (negate false: a row passes when it contains any of the
 * texts) or `!= "a" or "b"` (negate true: when it contains none); `texts` are UTF-8, never empty.
 */
export interface LiteralLineFilter {
  texts: readonly Buffer[];
  negate: boolean;
}

/**
 * LineMatch is literal line filters: `literals` must all hold for a row to pass, and with
 * `none` no row does (`!= ""`). A store that holds lines as strings tests them with `test`,
 * which is the same filters as a predicate.
 */
export interface LineMatch {
  literals: readonly LiteralLineFilter[];
  none: boolean;
  test: (line: string) => boolean;
}

/**
 * literalLineMatch builds a LineMatch from filters given as text. An empty text is in every
 * line: a `|=` holding one passes every line and is left out, a `!=` holding one passes none.
 */
export function literalLineMatch(filters: ReadonlyArray<{ texts: readonly string[]; negate: boolean }>): LineMatch {
  const literals: LiteralLineFilter[] = [];
  const tests: Array<(line: string) => boolean> = [];
  for (const f of filters) {
    if (f.texts.includes('')) {
      if (f.negate) return { literals: [], none: true, test: () => false };
      continue;
    }
    literals.push({ texts: f.texts.map((text) => Buffer.from(text, 'utf8')), negate: f.negate });
    const texts = f.texts;
    const contains = texts.length === 1 ? (line: string) => line.includes(texts[0]) : (line: string) => texts.some((text) => line.includes(text));
    tests.push(f.negate ? (line) => !contains(line) : contains);
  }
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
   * apply narrows the mask by every literal of `match`, each text searched with `search`, which
   * marks in the array it is given the rows containing the needle (offset 0 = row `from`).
   */
  apply(match: LineMatch, search: (needle: Buffer, hits: Uint8Array) => void): void {
    const { passes, found } = this;
    if (match.none) {
      passes.fill(0);
      return;
    }
    for (const literal of match.literals) {
      found.fill(0);
      for (const text of literal.texts) search(text, found);
      if (literal.negate) for (let i = 0; i < passes.length; i++) passes[i] &= found[i] ^ 1;
      else for (let i = 0; i < passes.length; i++) passes[i] &= found[i];
    }
  }
}

/**
 * RowSearch is how a LineMatchCursor searches a store's rows: `source` is what they belong to
 * (a segment, a head chunk: the same object holds the same bytes for as long as it is read),
 * `rangeStart(row)` and `rangeEnd(row)` bound the run of rows searched together with `row` (its
 * message block, or ROW_SEARCH_RANGE aligned rows), and `markContaining` marks in `hits`
 * (offset 0 = row `from`) the rows of [from, end) that contain `needle`.
 */
export interface RowSearch {
  readonly source: object;
  rangeStart(row: number): number;
  rangeEnd(row: number): number;
  markContaining(from: number, end: number, needle: Buffer, hits: Uint8Array): void;
}

/** ROW_SEARCH_RANGE is how many rows a store without blocks searches at once (aligned to multiples of it). */
export const ROW_SEARCH_RANGE = 1024;

/** alignedRange is the start (`end` false) or end of the ROW_SEARCH_RANGE rows holding `row`, within `rows` rows. */
export function alignedRange(row: number, rows: number, end: boolean): number {
  const start = row - (row % ROW_SEARCH_RANGE);
  return end ? Math.min(start + ROW_SEARCH_RANGE, rows) : start;
}

/** SEARCH_TRIAL_ROWS is how many rows searched decide whether a cursor goes on searching (each such run decides again, until it stops). */
const SEARCH_TRIAL_ROWS = 4096;

/**
 * PASSING_SHARE_OFF is the share of a trial's rows passing above which a cursor stops
 * searching: a passing row cost about 71 ns more searched, a failing one spared about 135 (a
 * count by route through `| json` over 1M lines, rawSearch.bench.ts), even at about two thirds.
 */
const PASSING_SHARE_OFF = 2 / 3;

/**
 * MAX_KEPT_MASK_ROWS bounds the rows whose marks a cursor keeps (a byte each): past it, the
 * marks kept so far are let go and keeping starts over.
 */
const MAX_KEPT_MASK_ROWS = 8 * 1024 * 1024;

/**
 * LineMatchCursor tells a scan which rows pass a LineMatch. Reaching a row of a range it has
 * not searched, it searches that whole range at once, natively over the stored bytes as a count
 * does: rows that fail never have their line read, and a scan whose rows lie in a few ranges
 * (one stream among many) searches only those. Ranges are fixed by the store, not by the scan's
 * window, and the cursor keeps the marks of the ranges it searched for as long as its query's
 * pipeline lives (cursorOf): a query read in time slices searches a range once, also where a
 * head chunk holds lines out of time order and every slice reads some of its rows.
 *
 * Searching costs about a native call per row that passes, so where most rows pass it costs
 * more than it spares: the cursor counts the rows of the ranges it searches and, once more
 * than PASSING_SHARE_OFF of a trial's rows passed, passes every row from then on (the filters
 * still decide each line read). `bench/logql/rawSearch.bench.ts`, a count through a filter
 * every line passes: 1.22x the time searched, 1.0x after the trial.
 */
export class LineMatchCursor {
  private source: object | undefined;
  private from = 0;
  private end = 0;
  private passes: Uint8Array = new Uint8Array(0);
  /** kept holds the marks of every range searched, by source and the range's first row. */
  private kept = new WeakMap<object, Map<number, Uint8Array>>();
  private keptRows = 0;

  constructor(readonly match: LineMatch) {}

  /** off is set once most rows searched passed: every row passes from then on. */
  private off = false;
  private trialRows = 0;
  private trialPassed = 0;

  /** passesRow says whether `row` of `search`'s store passes the match (true, unsearched, once the cursor is off). */
  passesRow(row: number, search: RowSearch): boolean {
    if (search.source !== this.source || row < this.from || row >= this.end) {
      if (this.off) return true;
      this.enter(row, search);
    }
    return this.passes[row - this.from] === 1;
  }

  /** enter makes the range holding `row` the current one, searching it unless it was searched before. */
  private enter(row: number, search: RowSearch): void {
    const from = search.rangeStart(row);
    let bySource = this.kept.get(search.source);
    let passes = bySource?.get(from);
    // Marks made before the source's range reached `row` (rows appended since) are made again.
    if (passes === undefined || row >= from + passes.length) {
      const end = search.rangeEnd(row);
      const mask = new RowMask(end - from);
      mask.apply(this.match, (needle, hits) => search.markContaining(from, end, needle, hits));
      passes = mask.passes;
      this.judge(passes);
      if (this.keptRows + passes.length > MAX_KEPT_MASK_ROWS) {
        this.kept = new WeakMap();
        this.keptRows = 0;
        bySource = undefined;
      }
      if (bySource === undefined) this.kept.set(search.source, (bySource = new Map()));
      bySource.set(from, passes);
      this.keptRows += passes.length;
    }
    this.source = search.source;
    this.from = from;
    this.end = from + passes.length;
    this.passes = passes;
  }

  /** judge counts a searched range's rows towards the trial that decides whether searching still pays. */
  private judge(passes: Uint8Array): void {
    let passed = 0;
    for (let i = 0; i < passes.length; i++) passed += passes[i];
    this.trialRows += passes.length;
    this.trialPassed += passed;
    if (this.trialRows < SEARCH_TRIAL_ROWS) return;
    this.off = this.trialPassed > this.trialRows * PASSING_SHARE_OFF;
    this.trialRows = 0;
    this.trialPassed = 0;
  }
}

/**
 * cursors keeps each LineMatch's cursor for as long as the match lives (its query's pipeline).
 * A mask depends only on the match and the source's bytes, so whichever scan searched a range
 * last, its answer holds for the next.
 */
const cursors = new WeakMap<LineMatch, LineMatchCursor>();

function cursorOf(match: LineMatch): LineMatchCursor {
  let cursor = cursors.get(match);
  if (cursor === undefined) cursors.set(match, (cursor = new LineMatchCursor(match)));
  return cursor;
}

/** LineMatchOf gives the literal filters a scan's group's lines must pass (undefined: none), asked once per group. */
export type LineMatchOf<G> = (group: G) => LineMatch | undefined;

/** ScanGroup is a group a scan opened with the cursor of its filters (one per LineMatch, so groups that share filters share searches). */
export interface ScanGroup<G> {
  group: G;
  cursor: LineMatchCursor | undefined;
}

/** scanGroup pairs an opened group with the cursor of its filters. */
export function scanGroup<G>(group: G, lineMatchOf: LineMatchOf<G> | undefined): ScanGroup<G> {
  const match = lineMatchOf?.(group);
  return { group, cursor: match === undefined ? undefined : cursorOf(match) };
}
