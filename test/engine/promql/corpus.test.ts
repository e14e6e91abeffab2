/**
 * Runs every expression of the upstream PromQL conformance corpus through the front end: each
 * evaluation that is not expected to fail must parse, type-check, print, and parse again to
 * the same tree. Files that exercise experimental syntax we do not accept are left out.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseAndCheckPromQL, printPromQL } from '../../../engine/promql/index.js';
import { describeWithShared, sharedPath } from '../../support/sharedBundle.js';
import { stripPositions } from './helpers.js';

const CORPUS_DIR = sharedPath('conformance/promql');

/** EXPERIMENTAL_FILES exercise upstream features behind feature flags (duration expressions, fill(), info(), ...). */
const EXPERIMENTAL_FILES = new Set([
  'duration_expression',
  'fill-modifier',
  'info',
  'type_and_unit',
  'start_timestamps',
  'extended_vectors',
]);

const EVAL_INSTANT = /^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/;
const EVAL_RANGE = /^eval(?:_(fail|warn|info))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$/;
const EXPECT_FAIL = /^expect fail(?:\s+(msg|regex):\s*(.*))?$/;

interface CorpusCase {
  file: string;
  line: number;
  expr: string;
  expectFail: boolean;
  failMessage: string | null;
}

/** readCorpus extracts every eval expression with its expect-fail marking. */
function readCorpus(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const name of readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.test')).sort()) {
    const lines = readFileSync(join(CORPUS_DIR, name), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const match = EVAL_INSTANT.exec(lines[i]) ?? EVAL_RANGE.exec(lines[i]);
      if (match === null) continue;
      let expectFail = match[1] === 'fail';
      let failMessage: string | null = null;
      for (let j = i + 1; j < lines.length; j++) {
        const body = lines[j].trim();
        if (body === '' || /^(eval|load|clear)/.test(lines[j])) break;
        const fail = EXPECT_FAIL.exec(body);
        if (fail !== null) {
          expectFail = true;
          if (fail[1] === 'msg') failMessage = fail[2];
        }
      }
      cases.push({ file: name.slice(0, -'.test'.length), line: i + 1, expr: match[match.length - 1], expectFail, failMessage });
    }
  }
  return cases;
}

/** roundTripProblem parses, checks and re-prints one expression; returns what went wrong, if anything. */
function roundTripProblem(text: string): string | null {
  try {
    const tree = parseAndCheckPromQL(text);
    const printed = printPromQL(tree);
    const again = parseAndCheckPromQL(printed);
    expect(stripPositions(again)).toEqual(stripPositions(tree));
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

describeWithShared('conformance/promql', 'PromQL conformance corpus', () => {
  const cases = readCorpus();
  const stable = cases.filter((c) => !EXPERIMENTAL_FILES.has(c.file));

  it('finds the corpus', () => {
    expect(stable.length).toBeGreaterThan(1500);
    const experimental = cases.filter((c) => EXPERIMENTAL_FILES.has(c.file) && !c.expectFail);
    const accepted = experimental.filter((c) => roundTripProblem(c.expr) === null).length;
    console.info(`PromQL corpus, experimental files (not required): ${accepted}/${experimental.length} accepted`);
  });

  it('parses, checks and round-trips every expression expected to succeed', () => {
    const expected = stable.filter((c) => !c.expectFail);
    const failures: string[] = [];
    for (const c of expected) {
      const problem = roundTripProblem(c.expr);
      if (problem !== null) failures.push(`${c.file}.test:${c.line}: ${c.expr}\n    ${problem}`);
    }
    console.info(`PromQL corpus: ${expected.length - failures.length}/${expected.length} expressions parse and check`);
    expect(failures).toEqual([]);
  });

  it('reports how expected failures fare at parse and check time', () => {
    const failing = stable.filter((c) => c.expectFail);
    let rejectedEarly = 0;
    let withMessage = 0;
    let messageMatches = 0;
    for (const c of failing) {
      let message: string | null = null;
      try {
        parseAndCheckPromQL(c.expr);
      } catch (err) {
        message = (err as Error).message;
      }
      if (message !== null) rejectedEarly++;
      if (c.failMessage !== null) {
        withMessage++;
        if (message !== null && message.endsWith(c.failMessage)) messageMatches++;
      }
    }
    // These failures are evaluation-time errors (NaN parameters, duplicate series, ...), which
    // the front end must not reject: the evaluator reports them.
    console.info(
      `PromQL corpus expect-fail: ${failing.length} cases, ${rejectedEarly} rejected by the front end, ` +
        `${messageMatches}/${withMessage} messages match`,
    );
    expect(rejectedEarly).toBe(0);
  });
});
