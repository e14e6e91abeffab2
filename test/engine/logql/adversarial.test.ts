import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { expectPositioned, timeFrontEnd, type FrontEndOutcome } from '../frontEndTiming.js';
import { MAX_EXPRESSION_DEPTH } from '../../../engine/common/depth.js';
import { MAX_QUERY_LENGTH, checkLogQL, parseLogQL, printLogQL } from '../../../engine/logql/index.js';
import { LOGQL_SHAPES } from '../../../bench/parsers/shapes.js';

/**
 * Every shape of adversarial input (the ones bench/parsers times) must be parsed or refused
 * with a positioned error quickly: no stack overflow, no quadratic rescans. The time bound is
 * generous on purpose (the suite shares a busy machine; a quadratic path at this size takes
 * minutes: 32 KB of minus signs took 172 s in LogQL); the benchmark reports the real figures.
 */
function frontEnd(text: string): FrontEndOutcome {
  return timeFrontEnd(text, (t) => {
    const expr = parseLogQL(t);
    checkLogQL(expr, t);
    printLogQL(expr);
  });
}

describe('LogQL front end on adversarial input', () => {
  // 1 MiB is refused by length at once; just under the length limit is where the work is.
  for (const size of [1 << 20, MAX_QUERY_LENGTH - 1]) {
    it(`parses or refuses every ${Math.round(size / 1024)} KiB shape in a few seconds at most`, () => {
      for (const shape of LOGQL_SHAPES) {
        const text = shape.make(size);
        const result = frontEnd(text);
        if (result.outcome === 'error') expectPositioned(result.error, text);
        expect(result.ms, shape.name).toBeLessThan(3000);
      }
    });
  }

  it('lexes a long run of minus signs in linear time (100 KB took 79 s)', () => {
    for (const text of ['-'.repeat(100_000), '{a="b"} ' + '-'.repeat(100_000), `{a="b"} | json ${'-'.repeat(100_000)}strict`]) {
      const result = frontEnd(text);
      expect(result.outcome).toBe('error');
      expectPositioned(result.error, text);
      expect(result.ms).toBeLessThan(1000);
    }
  });

  it('still reads the parser flags after the change to flag lexing', () => {
    expect(printLogQL(parseLogQL('{a="b"} | logfmt --strict --keep-empty'))).toContain('--strict');
    expect(() => parseLogQL('{a="b"} | logfmt --strictly')).toThrow(EngineError);
  });

  it('refuses nesting past the limit with the position of the first level too many', () => {
    const depth = MAX_EXPRESSION_DEPTH + 50;
    const inner = 'count_over_time({a="b"}[1m])';
    const text = '('.repeat(depth) + inner + ')'.repeat(depth);
    const { error } = frontEnd(text);
    expect(error?.message).toContain('expression nested too deeply');
    expect(error?.position?.start).toBe(MAX_EXPRESSION_DEPTH);
    const ok = '('.repeat(MAX_EXPRESSION_DEPTH - 10) + inner + ')'.repeat(MAX_EXPRESSION_DEPTH - 10);
    expect(frontEnd(ok).outcome).toBe('ok');
  });

  it('refuses deep aggregations, range parentheses and label filter parentheses instead of overflowing', () => {
    const n = 5000;
    for (const text of [
      'sum('.repeat(n) + 'count_over_time({a="b"}[1m])' + ')'.repeat(n),
      'count_over_time(' + '('.repeat(n) + '{a="b"}' + ')'.repeat(n) + '[1m])',
      '{a="b"} | ' + '('.repeat(n) + 'l="v"' + ')'.repeat(n),
      '1' + '^1'.repeat(n),
    ]) {
      const { error } = frontEnd(text);
      expect(error?.message, text.slice(0, 20)).toContain('expression nested too deeply');
      expectPositioned(error, text);
    }
  });

  it('accepts chains up to the limit and refuses longer ones with a position', () => {
    expect(frontEnd('1' + '+1'.repeat(MAX_EXPRESSION_DEPTH - 2)).outcome).toBe('ok');
    const long = '1' + '+1'.repeat(10_000);
    const { error } = frontEnd(long);
    expect(error?.message).toContain('expression nested too deeply');
    expect(long[error!.position!.start]).toBe('+');
    const filters = '{a="b"} | l="v"' + ' and l="v"'.repeat(10_000);
    const filterResult = frontEnd(filters);
    expect(filterResult.error?.message).toContain('expression nested too deeply');
    expectPositioned(filterResult.error, filters);
  });
});
