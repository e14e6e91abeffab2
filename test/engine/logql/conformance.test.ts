import { expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { checkLogQL, parseLogQL } from '../../../engine/logql/index.js';
import { describeWithShared } from '../../support/sharedBundle.js';
import { conformanceCases } from './conformanceCases.js';
import type { ConformanceCase } from './conformanceCases.js';

/**
 * Messages of `expect fail` cases that Loki raises before evaluation (while parsing or
 * validating), as opposed to failures found while running the query (parser errors on
 * lines, bad label values). The front end must reject exactly the former.
 */
const FRONT_END_FAILURES = [
  'syntax error',
  'expecting',
  'not defined',
  'unclosed action',
  'unable to parse literal as a float',
  'ip: invalid pattern',
  'ip: invalid operation',
  'error parsing regexp',
  'named captures are not allowed',
  'cannot parse expression',
  'at least one named capture must be supplied',
  'duplicate extracted label name',
  'at least one capture is required',
  'invalid aggregation',
  'grouping not allowed',
  'unexpected -',
  'invalid parameter',
  'parameter required',
  'only supported on instant queries',
];

/** failsInFrontEnd tells from an expect-fail case's expected message where Loki rejects it. */
function failsInFrontEnd(c: ConformanceCase): boolean {
  if (c.failPattern !== undefined) return FRONT_END_FAILURES.some((m) => c.failPattern!.test(m) || c.failPattern!.source.includes(m));
  if (c.failMessage === undefined) return true;
  return FRONT_END_FAILURES.some((m) => c.failMessage!.includes(m));
}

function frontEndError(query: string, rangeQuery: boolean): EngineError | undefined {
  try {
    checkLogQL(parseLogQL(query), query, { rangeQuery });
    return undefined;
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
}

describeWithShared('conformance/logql', 'LogQL conformance corpus', () => {
  const cases = conformanceCases();

  it('finds the corpus', () => {
    expect(cases.length).toBeGreaterThan(800);
  });

  it('parses and checks every query not marked expect fail', () => {
    const expected = cases.filter((c) => !c.expectFail);
    const failures = expected
      .map((c) => ({ c, err: frontEndError(c.query, c.rangeQuery) }))
      .filter(({ err }) => err !== undefined)
      .map(({ c, err }) => `${c.file}:${c.line}: ${c.query}\n    ${err?.message}`);
    expect(failures).toEqual([]);
    // 733 at the corpus commit recorded in SOURCE.txt.
    expect(expected.length).toBe(733);
  });

  it('rejects the expect-fail queries whose failure Loki reports before evaluation, with its message', () => {
    const frontEnd = cases.filter((c) => c.expectFail && failsInFrontEnd(c));
    expect(frontEnd.length).toBeGreaterThan(50);
    for (const c of frontEnd) {
      const err = frontEndError(c.query, c.rangeQuery);
      expect(err, `${c.file}:${c.line}: ${c.query}`).toBeDefined();
      if (c.failMessage !== undefined) expect(err?.message, `${c.file}:${c.line}`).toContain(c.failMessage);
      if (c.failPattern !== undefined) expect(err?.message, `${c.file}:${c.line}`).toMatch(c.failPattern);
    }
  });

  it('accepts the expect-fail queries that fail only while evaluating', () => {
    const runtime = cases.filter((c) => c.expectFail && !failsInFrontEnd(c));
    expect(runtime.length).toBeGreaterThan(10);
    for (const c of runtime) {
      expect(frontEndError(c.query, c.rangeQuery)?.message, `${c.file}:${c.line}: ${c.query}`).toBeUndefined();
    }
  });
});
