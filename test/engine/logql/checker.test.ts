import { describe, expect, it } from 'vitest';
import { EMPTY_MATCHER_ERROR, RANGE_AGGREGATION_OPS } from '../../../engine/logql/index.js';
import type { RangeAggregationOp } from '../../../engine/logql/index.js';
import { checkError, parseAndCheck, textFrom } from './helpers.js';

/** Range aggregations Loki evaluates from an unwrapped label, and those it evaluates from lines. */
const NEEDS_UNWRAP: RangeAggregationOp[] = [
  'avg_over_time',
  'sum_over_time',
  'max_over_time',
  'min_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'quantile_over_time',
  'rate_counter',
  'first_over_time',
  'last_over_time',
];
const REFUSES_UNWRAP: RangeAggregationOp[] = ['count_over_time', 'bytes_over_time', 'bytes_rate'];
const EITHER: RangeAggregationOp[] = ['rate', 'absent_over_time'];
const ALLOWS_GROUPING: RangeAggregationOp[] = [
  'avg_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'quantile_over_time',
  'max_over_time',
  'min_over_time',
  'first_over_time',
  'last_over_time',
];

function call(op: RangeAggregationOp, range: string, grouping = ''): string {
  const param = op === 'quantile_over_time' ? '0.5, ' : '';
  return `${op}(${param}${range})${grouping}`;
}

describe('range aggregation rules', () => {
  it('classifies every range aggregation', () => {
    expect([...NEEDS_UNWRAP, ...REFUSES_UNWRAP, ...EITHER].sort()).toEqual([...RANGE_AGGREGATION_OPS].sort());
  });

  it.each(NEEDS_UNWRAP)('%s needs unwrap', (op) => {
    expect(() => parseAndCheck(call(op, '{app="a"} | logfmt | unwrap v [1m]'))).not.toThrow();
    const err = checkError(call(op, '{app="a"}[1m]'));
    expect(err.message).toBe(`1:1: compile error: invalid aggregation ${op} without unwrap`);
  });

  it.each(REFUSES_UNWRAP)('%s refuses unwrap', (op) => {
    expect(() => parseAndCheck(call(op, '{app="a"}[1m]'))).not.toThrow();
    const text = call(op, '{app="a"} | logfmt | unwrap v [1m]');
    const err = checkError(text);
    expect(err.message).toContain(`compile error: invalid aggregation ${op} with unwrap`);
    expect(textFrom(text, err).startsWith('| unwrap v')).toBe(true);
  });

  it.each(EITHER)('%s works with or without unwrap', (op) => {
    expect(() => parseAndCheck(call(op, '{app="a"}[1m]'))).not.toThrow();
    expect(() => parseAndCheck(call(op, '{app="a"} | unwrap v [1m]'))).not.toThrow();
  });

  it.each(RANGE_AGGREGATION_OPS)('%s grouping is allowed only where Loki allows it', (op) => {
    const range = NEEDS_UNWRAP.includes(op) ? '{app="a"} | unwrap v [1m]' : '{app="a"}[1m]';
    const text = call(op, range, ' by (pod)');
    if (ALLOWS_GROUPING.includes(op)) {
      expect(() => parseAndCheck(text)).not.toThrow();
      expect(() => parseAndCheck(call(op, range, ' without (pod)'))).not.toThrow();
    } else {
      const err = checkError(text);
      expect(err.message).toContain(`grouping not allowed for ${op} aggregation`);
      expect(textFrom(text, err)).toBe('by (pod)');
      expect(checkError(call(op, range, ' by ()')).message).toContain('grouping not allowed');
    }
  });

  it('requires the quantile parameter and refuses parameters elsewhere', () => {
    expect(checkError('quantile_over_time({a="b"} | unwrap v [5m])').message).toContain(
      'parameter required for operation quantile_over_time',
    );
    const text = 'sum_over_time(50, {a="b"} | unwrap v [5m])';
    const err = checkError(text);
    expect(err.message).toContain('parameter 50 not supported for operation sum_over_time');
    expect(textFrom(text, err).startsWith('50,')).toBe(true);
  });

  it('accepts quantiles outside [0, 1], which evaluate to infinities as in Loki', () => {
    expect(() => parseAndCheck('quantile_over_time(1.5, {a="b"} | unwrap v [5m])')).not.toThrow();
  });
});

describe('vector aggregation rules', () => {
  it.each(['topk', 'bottomk', 'approx_topk'])('%s needs a positive integer parameter', (op) => {
    expect(() => parseAndCheck(`${op}(2, rate({a="b"}[1m]))`)).not.toThrow();
    expect(checkError(`${op}(rate({a="b"}[1m]))`).message).toContain(`parameter required for operation ${op}`);
    expect(checkError(`${op}(1.5, rate({a="b"}[1m]))`).message).toContain(`invalid parameter ${op}(1.5,`);
    expect(checkError(`${op}(0, rate({a="b"}[1m]))`).message).toContain(`invalid parameter (must be greater than 0) ${op}(0`);
  });

  it('refuses a parameter for the other aggregations', () => {
    const err = checkError('sum(3, rate({a="b"}[1m]))');
    expect(err.message).toContain('unsupported parameter for operation sum(3,');
    expect(err.position).toEqual({ start: 4, end: 5 });
  });

  it('refuses grouping on approx_topk and range queries using it', () => {
    expect(checkError('approx_topk(2, rate({a="b"}[1m])) by (app)').message).toContain('grouping not allowed for approx_topk aggregation');
    expect(() => parseAndCheck('approx_topk(2, rate({a="b"}[1m]))')).not.toThrow();
    expect(checkError('approx_topk(2, rate({a="b"}[1m]))', { rangeQuery: true }).message).toContain(
      'approx_topk is only supported on instant queries',
    );
  });

  it('refuses sort grouping by labels', () => {
    expect(checkError('sort by (a) (rate({a="b"}[1m]))').message).toContain("sort and sort_desc doesn't allow grouping by");
    expect(() => parseAndCheck('sort_desc by () (rate({a="b"}[1m]))')).not.toThrow();
  });

  it('checks the expressions inside aggregations', () => {
    expect(checkError('sum(count_over_time({a="b"} | unwrap v [1m]))').message).toContain(
      'invalid aggregation count_over_time with unwrap',
    );
  });
});

describe('binary expression rules', () => {
  it('rejects a log query on either side', () => {
    const left = checkError('{a="b"} + 1');
    expect(left.message).toBe('1:1: compile error: unexpected type for left leg of binary operation (+): log query');
    const right = checkError('1 - {a="b"} |= "x"');
    expect(right.message).toBe('1:5: compile error: unexpected type for right leg of binary operation (-): log query');
  });

  it('rejects literals with set operators', () => {
    expect(checkError('rate({a="b"}[1m]) or 0').message).toContain(
      'unexpected literal for right leg of logical/set binary operation (or): 0.000000',
    );
    expect(checkError('1 unless rate({a="b"}[1m])').message).toContain(
      'unexpected literal for left leg of logical/set binary operation (unless): 1.000000',
    );
  });

  it('allows bool only on comparisons', () => {
    expect(() => parseAndCheck('rate({a="b"}[1m]) > bool 1')).not.toThrow();
    expect(checkError('rate({a="b"}[1m]) + bool 1').message).toContain('bool modifier can only be used on comparison operators');
  });

  it('validates vector matching', () => {
    expect(() => parseAndCheck('rate({a="b"}[1m]) / on (x) group_left (y) rate({a="c"}[1m])')).not.toThrow();
    expect(checkError('rate({a="b"}[1m]) and on (x) group_left rate({a="c"}[1m])').message).toContain(
      'no grouping allowed for "and" operation',
    );
    expect(checkError('rate({a="b"}[1m]) * on (x) 2').message).toContain('vector matching only allowed between vectors');
    expect(checkError('rate({a="b"}[1m]) * on (x) group_left (x) rate({a="c"}[1m])').message).toContain(
      'label "x" must not occur in ON and GROUP clause at once',
    );
  });

  it('checks both operands', () => {
    expect(checkError('1 + sum_over_time({a="b"}[1m])').message).toContain('invalid aggregation sum_over_time without unwrap');
  });
});

describe('selector and stage rules', () => {
  it.each([
    ['{foo!="bar"}', false],
    ['{app="baz", foo!="bar"}', true],
    ['{app=~".+"}', true],
    ['{app=~".*"}', false],
    ['{app=~"bar|baz"}', true],
    ['{app!~"bar|baz"}', false],
    ['{app=""}', false],
    ['{app!=""}', true],
    ['{app=~"(?i)a|"}', false],
    ['{}', false],
  ])('%s selects streams: %s', (selector, valid) => {
    for (const text of [selector, `count_over_time(${selector}[5m])`, `1 + count_over_time({a="b"}[5m]) + count_over_time(${selector}[5m])`]) {
      if (valid) expect(() => parseAndCheck(text)).not.toThrow();
      else expect(checkError(text).message).toContain(EMPTY_MATCHER_ERROR);
    }
  });

  it('allows ip() only with |= and != line filters', () => {
    expect(() => parseAndCheck('{a="b"} |= ip("10.0.0.0/8") != ip("::1")')).not.toThrow();
    const text = '{a="b"} |~ "special" or ip("192.168.1.0/24")';
    const err = checkError(text);
    expect(err.message).toContain('ip: invalid operation');
    expect(textFrom(text, err)).toBe('ip("192.168.1.0/24")');
  });

  it('refuses formatting one label twice or formatting __error__', () => {
    const text = '{a="b"} | label_format x="{{.a}}", x=y';
    const err = checkError(text);
    expect(err.message).toContain("multiple label name 'x' not allowed in a single format operation");
    expect(textFrom(text, err)).toBe('x=y');
    expect(checkError('{a="b"} | label_format __error__=x').message).toContain('__error__ cannot be formatted');
  });

  it('validates the label_replace destination', () => {
    expect(checkError('label_replace(vector(1), "1x", "", "a", "")').message).toContain(
      'invalid destination label name in label_replace(): 1x',
    );
  });

  it('formats errors as compile errors with line and column', () => {
    const err = checkError('sum(\n  rate({a="b"}[1m]) by (x)\n)');
    expect(err.code).toBe('COMPILE_ERROR');
    expect(err.message).toBe('2:21: compile error: grouping not allowed for rate aggregation');
  });
});
