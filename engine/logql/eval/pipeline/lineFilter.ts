/**
 * Line filters: `|=`, `!=`, `|~`, `!~`, `|>`, `!>`, with `or` alternatives and `ip()`
 * operands. A filter only reads the line, which is why the pipeline may run it before any
 * parser. Substrings use indexOf (V8's native search), regular expressions the RE2 engine.
 */
import type { LineFilterStage, LineFilterValue } from '../../ast.js';
import { compileRegex } from '../../../regex/index.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { textContainsIp } from './ipSearch.js';
import { patternTest } from './patternMatch.js';
import { NO_LABELS_READ, type LineTest, type Stage } from './stage.js';

function valueTest(op: LineFilterStage['op'], value: LineFilterValue): LineTest {
  if (value.kind === 'LineFilterIp') {
    const ip = value.ip;
    return (line) => textContainsIp(line, ip);
  }
  const text = value.value;
  switch (op) {
    case '|=':
    case '!=':
      if (text === '') return () => true;
      return (line) => line.includes(text);
    case '|~':
    case '!~': {
      const re = compileRegex(text);
      return (line) => re.test(line);
    }
    case '|>':
    case '!>': {
      const pattern = value.pattern;
      if (pattern === undefined) return (line) => line === text;
      return (line) => patternTest(pattern, line);
    }
  }
}

/**
 * compileLineTest turns a line filter stage into a predicate. A positive operator keeps a line
 * any alternative matches; a negative one keeps a line none matches.
 */
export function compileLineTest(stage: LineFilterStage): LineTest {
  const negative = stage.op === '!=' || stage.op === '!~' || stage.op === '!>';
  const tests = stage.values.map((v) => valueTest(stage.op, v));
  if (tests.length === 1) {
    const only = tests[0];
    if (!negative) return only;
    // A single substring exclusion is the hottest negative form; keep it one call deep.
    const value = stage.values[0];
    if (value.kind === 'LineFilterLiteral' && stage.op === '!=') {
      const text = value.value;
      return text === '' ? () => false : (line) => !line.includes(text);
    }
    return (line) => !only(line);
  }
  if (negative) {
    return (line) => {
      for (let i = 0; i < tests.length; i++) if (tests[i](line)) return false;
      return true;
    };
  }
  return (line) => {
    for (let i = 0; i < tests.length; i++) if (tests[i](line)) return true;
    return false;
  };
}

/**
 * AsciiLineTest is a line filter's test of a line held as ASCII bytes, bytes[start, end).
 * Lines of one buffer must be asked in increasing order (a scan's row order) to be cheap.
 */
export type AsciiLineTest = (bytes: Uint8Array, start: number, end: number) => boolean;

/**
 * LiteralSearch finds a literal in lines held as bytes of a larger buffer (a segment's block, a
 * head chunk): one native search from a line's start finds the next occurrence in the buffer,
 * which answers every line up to it, so a buffer is searched about once however many lines it
 * holds (as `markContaining` does for counts), and no line's string is made.
 */
class LiteralSearch {
  private buffer: Uint8Array | undefined;
  /** from is the start of the line asked last; next the first occurrence at or after it (Infinity: none to the buffer's end). */
  private from = 0;
  private next = -1;

  constructor(private readonly needle: Buffer) {}

  contains(bytes: Uint8Array, start: number, end: number): boolean {
    if (bytes !== this.buffer || start < this.from) {
      this.buffer = bytes;
      this.next = -1;
    }
    this.from = start;
    if (this.next < start) {
      const at = Buffer.prototype.indexOf.call(bytes, this.needle, start) as number;
      this.next = at < 0 ? Infinity : at;
    }
    // `next` is the first occurrence at or after `start`: the line holds one if that one ends in it.
    return this.next + this.needle.length <= end;
  }
}

/**
 * compileAsciiLineTest is compileLineTest for lines held as ASCII bytes, for the filters whose
 * alternatives are all non-empty literals (`|= "text"`, `!= "a" or "b"`); undefined for the
 * others, which read the line's text.
 */
export function compileAsciiLineTest(stage: LineFilterStage): AsciiLineTest | undefined {
  if (stage.op !== '|=' && stage.op !== '!=') return undefined;
  const searches: LiteralSearch[] = [];
  for (const value of stage.values) {
    if (value.kind !== 'LineFilterLiteral' || value.value === '') return undefined;
    searches.push(new LiteralSearch(Buffer.from(value.value, 'utf8')));
  }
  const anyFound: AsciiLineTest =
    searches.length === 1
      ? (bytes, start, end) => searches[0].contains(bytes, start, end)
      : (bytes, start, end) => {
          for (let i = 0; i < searches.length; i++) if (searches[i].contains(bytes, start, end)) return true;
          return false;
        };
  return stage.op === '|=' ? anyFound : (bytes, start, end) => !anyFound(bytes, start, end);
}

/** combineAsciiLineTests is combineLineTests for byte tests: undefined when any filter has none. */
export function combineAsciiLineTests(tests: readonly (AsciiLineTest | undefined)[]): AsciiLineTest | undefined {
  if (tests.some((t) => t === undefined)) return undefined;
  const all = tests as readonly AsciiLineTest[];
  if (all.length === 1) return all[0];
  return (bytes, start, end) => {
    for (let i = 0; i < all.length; i++) if (!all[i](bytes, start, end)) return false;
    return true;
  };
}

/** combineLineTests joins consecutive filters into one predicate (all must pass). */
export function combineLineTests(tests: readonly LineTest[]): LineTest {
  if (tests.length === 1) return tests[0];
  if (tests.length === 2) {
    const [a, b] = tests;
    return (line) => a(line) && b(line);
  }
  return (line) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](line)) return false;
    return true;
  };
}

/**
 * LineFilter adapts a predicate to the Stage contract; `asciiTest`, when the filter has one,
 * tests lines held as ASCII bytes the same way (StreamPipeline.processAscii).
 */
export class LineFilter implements Stage {
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = false;
  readonly readsLine = true;

  constructor(
    readonly test: LineTest,
    readonly asciiTest?: AsciiLineTest,
  ) {}

  process(_timestampNs: bigint, line: string, _labels: LabelsBuilder): string | null {
    return this.test(line) ? line : null;
  }
}
