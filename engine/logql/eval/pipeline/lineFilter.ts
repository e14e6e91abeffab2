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

/** LineFilter adapts a predicate to the Stage contract. */
export class LineFilter implements Stage {
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = false;
  readonly readsLine = true;

  constructor(readonly test: LineTest) {}

  process(_timestampNs: bigint, line: string, _labels: LabelsBuilder): string | null {
    return this.test(line) ? line : null;
  }
}
