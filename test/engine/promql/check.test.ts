import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { checkPromQL, parseAndCheckPromQL, parsePromQL } from '../../../engine/promql/index.js';

/** compileFailure returns the COMPILE_ERROR message for `text`, which must parse. */
function compileFailure(text: string): string {
  const tree = parsePromQL(text);
  try {
    checkPromQL(tree, text);
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('COMPILE_ERROR');
    return (err as EngineError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail the check`);
}

describe('checkPromQL', () => {
  it.each([
    'sum by (job) (rate(http_requests_total{job="api"}[5m]))',
    'histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))',
    'label_join(up, "dst", ",", "a", "b", "c")',
    'sort_by_label(up)',
    'round(x)',
    'round(x, 0.5)',
    'hour()',
    'hour(x)',
    'time() - 1',
    '1 == bool 1',
    'x > 1',
    'scalar(x) < bool 2',
    'a and on(x) b',
    'a * on(x) group_left(y) b',
    'a / ignoring(x) group_right b',
    'count_values("value", x)',
    'quantile(0.5, x)',
    'rate(x[5m])[1h:1m]',
    'max_over_time(deriv(rate(x[1m])[5m:1m])[10m:])',
    '-x',
    '-(1 + 2)',
    '"just a string"',
    'x offset 5m',
    'vector(1) + on() vector(2)',
    'h </ 3',
    'info(up, {k8s_cluster_name="a"})',
  ])('accepts %s', (text) => {
    expect(() => parseAndCheckPromQL(text)).not.toThrow();
  });

  it.each([
    ['rate(x)', '1:6: compile error: expected type range vector in call to function "rate", got instant vector'],
    ['abs(x[5m])', '1:5: compile error: expected type instant vector in call to function "abs", got range vector'],
    ['floor(1)', '1:7: compile error: expected type instant vector in call to function "floor", got scalar'],
    ['label_replace(x, "a", "b", "c", 1)', '1:33: compile error: expected type string in call to function "label_replace", got scalar'],
    ['label_join(x, "a", ",", "b", 2)', '1:30: compile error: expected type string in call to function "label_join", got scalar'],
    ['floor()', '1:1: compile error: expected 1 argument(s) in call to "floor", got 0'],
    ['floor(x, y)', '1:1: compile error: expected 1 argument(s) in call to "floor", got 2'],
    ['time(x)', '1:1: compile error: expected 0 argument(s) in call to "time", got 1'],
    ['hour(x, y, z)', '1:1: compile error: expected at most 1 argument(s) in call to "hour", got 3'],
    ['label_join(x, "a")', '1:1: compile error: expected at least 3 argument(s) in call to "label_join", got 2'],
    ['sum(1)', '1:5: compile error: expected type instant vector in aggregation expression, got scalar'],
    ['sum(x[5m])', '1:5: compile error: expected type instant vector in aggregation expression, got range vector'],
    ['topk(x, y)', '1:6: compile error: expected type scalar in aggregation parameter, got instant vector'],
    ['count_values(5, x)', '1:14: compile error: expected type string in aggregation parameter, got scalar'],
    ['quantile("a", x)', '1:10: compile error: expected type scalar in aggregation parameter, got string'],
    ['1 == 1', '1:3: compile error: comparisons between scalars must use BOOL modifier'],
    ['x + bool y', '1:3: compile error: bool modifier can only be used on comparison operators'],
    ['x and bool y', '1:3: compile error: bool modifier can only be used on comparison operators'],
    ['1 and 1', '1:1: compile error: set operator "and" not allowed in binary scalar expression'],
    ['x or 1', '1:1: compile error: set operator "or" not allowed in binary scalar expression'],
    ['1 unless x', '1:1: compile error: set operator "unless" not allowed in binary scalar expression'],
    ['x and on(a) group_left(b) y', '1:1: compile error: no grouping allowed for "and" operation'],
    ['x or ignoring(a) group_right y', '1:1: compile error: no grouping allowed for "or" operation'],
    ['x + on(a) 1', '1:1: compile error: vector matching only allowed between instant vectors'],
    ['1 * ignoring(a) group_left x', '1:1: compile error: vector matching only allowed between instant vectors'],
    [
      'x + on(instance) group_left(job, instance) y',
      '1:3: compile error: label "instance" must not occur in ON and GROUP clause at once',
    ],
    ['x[5m] + 1', '1:1: compile error: binary expression must contain only scalar and instant vector types'],
    ['1 + "s"', '1:5: compile error: binary expression must contain only scalar and instant vector types'],
    ['-"s"', '1:1: compile error: unary expression only allowed on expressions of type scalar or instant vector, got "string"'],
    ['-x[5m]', '1:1: compile error: unary expression only allowed on expressions of type scalar or instant vector, got "range vector"'],
    ['x[5m][10m:]', '1:1: compile error: subquery is only allowed on instant vector, got matrix instead'],
    ['time()[5m:]', '1:1: compile error: subquery is only allowed on instant vector, got scalar instead'],
    ['info(x, target_info)', '1:9: compile error: expected label selectors only, got vector selector instead'],
    ['info(x, {a="b"} == 1)', '1:9: compile error: expected label selectors only'],
  ])('rejects %j', (text, message) => {
    expect(compileFailure(text)).toBe(message);
  });

  it('reports the innermost problem first', () => {
    expect(compileFailure('sum(rate(x) + 1)')).toBe(
      '1:10: compile error: expected type range vector in call to function "rate", got instant vector',
    );
  });

  it('positions errors on later lines', () => {
    expect(compileFailure('sum(\n  x\n) + bool\n  1')).toBe('3:3: compile error: bool modifier can only be used on comparison operators');
  });

  it('accepts trees that parseAndCheckPromQL returns unchanged', () => {
    const text = 'a + on(b) group_left c';
    const tree = parseAndCheckPromQL(text);
    expect(() => checkPromQL(tree, text)).not.toThrow();
  });

  it('lets parse errors through as INVALID_EXPR from parseAndCheckPromQL', () => {
    expect(() => parseAndCheckPromQL('sum(')).toThrow(expect.objectContaining({ code: 'INVALID_EXPR' }));
    expect(() => parseAndCheckPromQL('1 == 1')).toThrow(expect.objectContaining({ code: 'COMPILE_ERROR' }));
  });
});
