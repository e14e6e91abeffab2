import { describe, expect, it } from 'vitest';
import { expectPositioned, timeFrontEnd, type FrontEndOutcome } from '../frontEndTiming.js';
import { MAX_EXPRESSION_DEPTH } from '../../../engine/common/depth.js';
import { MAX_QUERY_LENGTH, parseAndCheckPromQL, printPromQL } from '../../../engine/promql/index.js';
import { PROMQL_SHAPES } from '../../../bench/parsers/shapes.js';

/**
 * Every shape of adversarial input (the ones bench/parsers times) must be parsed or refused
 * with a positioned error quickly: no stack overflow, no quadratic rescans. The time bound is
 * generous on purpose (the suite shares a busy machine; a quadratic path at this size takes
 * minutes: 32 KB of minus signs took 172 s in LogQL); the benchmark reports the real figures.
 */
function frontEnd(text: string): FrontEndOutcome {
  return timeFrontEnd(text, (t) => printPromQL(parseAndCheckPromQL(t)));
}

describe('PromQL front end on adversarial input', () => {
  for (const size of [1 << 20, MAX_QUERY_LENGTH]) {
    it(`parses or refuses every ${size >> 10} KiB shape in a few seconds at most`, () => {
      for (const shape of PROMQL_SHAPES) {
        const text = shape.make(size);
        const result = frontEnd(text);
        if (result.outcome === 'error') expectPositioned(result.error, text);
        expect(result.ms, shape.name).toBeLessThan(3000);
      }
    });
  }

  it('refuses text longer than MAX_QUERY_LENGTH before lexing it', () => {
    const text = 'a' + '+a'.repeat(MAX_QUERY_LENGTH);
    const { error } = frontEnd(text);
    expect(error?.message).toContain(`input size too long (${text.length} > ${MAX_QUERY_LENGTH})`);
    expect(error?.position).toEqual({ start: 0, end: 0 });
  });

  it('refuses parentheses nested past the limit at the first parenthesis too many', () => {
    const depth = MAX_EXPRESSION_DEPTH + 50;
    const text = '('.repeat(depth) + 'a' + ')'.repeat(depth);
    const { error } = frontEnd(text);
    expect(error?.message).toContain('expression nested too deeply');
    expect(error?.position?.start).toBe(MAX_EXPRESSION_DEPTH);
    expect(frontEnd('('.repeat(MAX_EXPRESSION_DEPTH - 1) + 'a' + ')'.repeat(MAX_EXPRESSION_DEPTH - 1)).outcome).toBe('ok');
  });

  it('refuses deep calls, aggregations, unary signs and subqueries with a position instead of overflowing', () => {
    const n = 5000;
    for (const text of [
      'abs('.repeat(n) + 'a' + ')'.repeat(n),
      'sum('.repeat(n) + 'a' + ')'.repeat(n),
      '-'.repeat(n) + 'a',
      'a' + '[5m:1m]'.repeat(n),
      '2' + '^2'.repeat(n),
    ]) {
      const { error } = frontEnd(text);
      expect(error?.message, text.slice(0, 20)).toContain('expression nested too deeply');
      expectPositioned(error, text);
    }
  });

  it('accepts an operator chain up to the limit and refuses a longer one at its first excess operator', () => {
    const terms = MAX_EXPRESSION_DEPTH - 1;
    const ok = 'a' + '+a'.repeat(terms - 1);
    expect(frontEnd(ok).outcome).toBe('ok');
    const long = 'a' + '+a'.repeat(10_000);
    const { error } = frontEnd(long);
    expect(error?.message).toContain('expression nested too deeply');
    expect(long[error!.position!.start]).toBe('+');
  });

  it('finds a tree made deep by chains inside parentheses', () => {
    const half = Math.ceil(MAX_EXPRESSION_DEPTH / 2) + 10;
    const inner = '(' + 'a' + '+a'.repeat(half) + ')';
    const text = inner + '+a'.repeat(half);
    const { error } = frontEnd(text);
    expect(error?.message).toContain('expression nested too deeply');
    expectPositioned(error, text);
  });
});
