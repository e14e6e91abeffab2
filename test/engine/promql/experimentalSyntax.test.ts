import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import {
  ALL_FEATURES_ON,
  parseOptionsFor,
  parsePromQL,
  printPromQL,
  resolveDurations,
  type BinaryExpr,
  type Expr,
  type MatrixSelector,
  type SubqueryExpr,
  type VectorSelector,
} from '../../../engine/promql/index.js';

/**
 * The experimental syntax of Prometheus 3 behind its feature flags: duration expressions,
 * fill modifiers, anchored and smoothed selectors, and the errors given when a flag is off.
 */

const on = ALL_FEATURES_ON;
const off = parseOptionsFor([]);

function failure(text: string, options = on): string {
  try {
    parsePromQL(text, options);
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return (err as EngineError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

function matrix(text: string, stepMs = 0, rangeMs = 0): MatrixSelector {
  const expr = resolveDurations(parsePromQL(text, on), { stepMs, rangeMs });
  expect(expr.type).toBe('MatrixSelector');
  return expr as MatrixSelector;
}

describe('duration expressions', () => {
  it.each([
    ['x[26m+4m]', 30 * 60_000],
    ['x[60*30]', 30 * 60_000],
    ['x[2m*(10+5)]', 30 * 60_000],
    ['x[24m+((1.5*2m)+2m)]', 29 * 60_000],
    ['x[-5m+35m]', 30 * 60_000],
    ['x[1h30m % 1h]', 30 * 60_000],
    ['x[30m1s-30m1s % 1m]', 30 * 60_000],
    ['x[2^3]', 8000],
    ['x[min_of(1h, 5m)]', 5 * 60_000],
    ['x[max_of(1h, 5m)]', 60 * 60_000],
  ])('folds %s while parsing', (text, ms) => {
    const m = matrix(text);
    expect(m.rangeMs).toBe(ms);
    expect(m.rangeExpr).toBeUndefined();
  });

  it('keeps step() and range() for the query to resolve', () => {
    const parsed = parsePromQL('x[step()*2+1ms]', on) as MatrixSelector;
    expect(parsed.rangeExpr).toBeDefined();
    expect(matrix('x[step()*2+1ms]', 15_000).rangeMs).toBe(30_001);
    expect(matrix('x[min_of(range(), 8s)]', 5000, 10_000).rangeMs).toBe(8000);
    // Resolution copies: the parsed tree still reads step().
    expect(parsed.rangeMs).toBe(0);
    expect(printPromQL(parsed)).toBe('x[step() * 2 + 1ms]');
  });

  it('resolves subquery ranges, steps and offsets', () => {
    const expr = resolveDurations(parsePromQL('x[max_of(range(), 1m):step()] offset -step()', on), { stepMs: 10_000, rangeMs: 120_000 }) as SubqueryExpr;
    expect([expr.rangeMs, expr.stepMs, expr.offsetMs]).toEqual([120_000, 10_000, -10_000]);
  });

  it('reads a subquery whose range is step() or range() alone, as Prometheus 3 does', () => {
    const durations = { stepMs: 15_000, rangeMs: 3_600_000 };
    const sub = (text: string): SubqueryExpr => {
      const expr = resolveDurations(parsePromQL(text, on), durations);
      expect(expr.type).toBe('SubqueryExpr');
      return expr as SubqueryExpr;
    };
    expect([sub('x[range():step()]').rangeMs, sub('x[range():step()]').stepMs]).toEqual([3_600_000, 15_000]);
    expect(sub('x[step():]').rangeMs).toBe(15_000);
    expect(sub('x[step():]').stepMs).toBeNull();
    expect([sub('x[range()/2:step()*2]').rangeMs, sub('x[range()/2:step()*2]').stepMs]).toEqual([1_800_000, 30_000]);
    expect(sub('x[(range()):step()] offset step()').offsetMs).toBe(15_000);
    expect(printPromQL(parsePromQL('sum_over_time(x[range():step()])', on))).toBe('sum_over_time(x[range():step()])');
    expect(printPromQL(parsePromQL('x[range():step()]', on))).toBe('x[range():step()]');
    // A colon still needs a duration before it, and only one colon is allowed.
    expect(failure('x[:step()]')).toContain('unexpected colon before duration');
    expect(failure('x[range()::]')).toContain('unexpected repeated colon');
    // Without the flag, the expression is refused, not misread.
    expect(failure('x[range():step()]', off)).toContain('experimental duration expression');
  });

  it('binds an offset to one operand, so operators after it apply to the shifted selector', () => {
    const expr = parsePromQL('x offset 100 + 2', on) as BinaryExpr;
    expect(expr.type).toBe('BinaryExpr');
    expect((expr.lhs as VectorSelector).offsetMs).toBe(100_000);
    expect(((parsePromQL('x offset -2 ^ 2', on) as BinaryExpr).lhs as VectorSelector).offsetMs).toBe(-2000);
    expect((parsePromQL('x offset (-2 ^ 2)', on) as VectorSelector).offsetMs).toBe(-4000);
    const stepped = parsePromQL('x offset -min_of(step(), 1s)^0', on) as BinaryExpr;
    expect(stepped.op).toBe('^');
    expect((resolveDurations(stepped, { stepMs: 5000, rangeMs: 0 }) as BinaryExpr).lhs).toMatchObject({ offsetMs: -1000 });
  });

  it('reports division by a literal zero at the operator, and bad values at query time', () => {
    expect(failure('x[5m/0]')).toBe('1:5: parse error: division by zero');
    expect(failure('x[5m%0]')).toBe('1:5: parse error: modulo by zero');
    expect(failure('x[5m-10m]')).toBe('1:3: parse error: duration must be greater than 0');
    const expr = parsePromQL('x[step()-1m]', on);
    expect(() => resolveDurations(expr, { stepMs: 30_000, rangeMs: 0 })).toThrow('2:11: duration must be greater than 0');
    expect(() => resolveDurations(parsePromQL('x[1m/(step()-step())]', on), { stepMs: 1000, rangeMs: 0 })).toThrow('division by zero');
  });
});

describe('fill modifiers', () => {
  const fill = (text: string): unknown => (parsePromQL(text, on) as BinaryExpr).matching.fill;

  it('reads fill, fill_left and fill_right in either order', () => {
    expect(fill('a + fill(0) b')).toEqual({ lhs: 0, rhs: 0 });
    expect(fill('a + fill_left(-1) b')).toEqual({ lhs: -1, rhs: null });
    expect(fill('a + fill_right(Inf) b')).toEqual({ lhs: null, rhs: Infinity });
    expect(fill('a + fill_right(2) fill_left(1) b')).toEqual({ lhs: 1, rhs: 2 });
    expect(fill('a * on(x) group_left(y) fill_left(5) fill_right(7) b')).toEqual({ lhs: 5, rhs: 7 });
    expect(fill('a + b')).toBeUndefined();
  });

  it('reads a fill keyword without a parenthesis as the right operand', () => {
    const expr = parsePromQL('other + fill', on) as BinaryExpr;
    expect(expr.matching.fill).toBeUndefined();
    expect((expr.rhs as VectorSelector).name).toBe('fill');
    expect(fill('other + fill(0) fill')).toEqual({ lhs: 0, rhs: 0 });
  });

  it('refuses a repeated modifier and prints what it parsed', () => {
    expect(failure('a + fill(0) fill(1) b')).toMatch(/parse error/);
    expect(failure('a + fill_left(0) fill_left(1) b')).toBe('1:18: parse error: unexpected <fill_left>');
    expect(printPromQL(parsePromQL('a + fill_left(1) fill_right(2) b', on))).toBe('a + fill_left (1) fill_right (2) b');
    expect(printPromQL(parsePromQL('a + fill(NaN) b', on))).toBe('a + fill (NaN) b');
  });
});

describe('anchored and smoothed', () => {
  it('marks the selector', () => {
    expect((parsePromQL('rate(x[5m] anchored)', on) as { args: Expr[] }).args[0]).toMatchObject({ selector: { anchored: true } });
    expect(parsePromQL('x offset 1m smoothed', on)).toMatchObject({ smoothed: true, offsetMs: 60_000 });
    expect(printPromQL(parsePromQL('x[5m] smoothed', on))).toBe('x[5m] smoothed');
  });

  it('refuses both together and subqueries', () => {
    expect(failure('x[5m] anchored smoothed')).toBe('1:1: parse error: anchored and smoothed modifiers cannot be used together');
    expect(failure('x[5m:1m] anchored')).toBe('1:1: parse error: anchored modifier is not supported for subqueries');
  });
});

describe('feature flags', () => {
  it.each([
    ['rate(x[5m] smoothed)', '1:6: parse error: smoothed modifier is experimental and not enabled'],
    ['x anchored', '1:1: parse error: anchored modifier is experimental and not enabled'],
    ['a * on(b) fill_left(1) c', '1:1: parse error: binop fill modifiers are experimental and not enabled'],
    ['x offset step()', '1:10: parse error: experimental duration expression is not enabled'],
    ['sum_over_time(x[29s+1s:5s+5s])', '1:17: parse error: experimental duration expression is not enabled\n1:24: parse error: experimental duration expression is not enabled'],
    ['limitk(1, x)', '1:1: parse error: limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions'],
  ])('without flags, %s gives Prometheus\' error', (text, message) => {
    expect(failure(text, off)).toBe(message);
  });

  it('each flag admits its own syntax only', () => {
    const fills = parseOptionsFor(['promql-binop-fill-modifiers']);
    expect(parsePromQL('a + fill(0) b', fills).type).toBe('BinaryExpr');
    expect(failure('x[5m] anchored', fills)).toBe('1:1: parse error: anchored modifier is experimental and not enabled');
    const durations = parseOptionsFor(['promql-duration-expr']);
    expect((parsePromQL('x[5m+1m]', durations) as MatrixSelector).rangeMs).toBe(360_000);
    expect(parsePromQL('x[5m] anchored', parseOptionsFor(['promql-extended-range-selectors'])).type).toBe('MatrixSelector');
  });
});
