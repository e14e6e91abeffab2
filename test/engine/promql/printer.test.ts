import { describe, expect, it } from 'vitest';
import { lookupFunction, parsePromQL, printPromQL, type Expr } from '../../../engine/promql/index.js';
import { stripPositions } from './helpers.js';

describe('printPromQL', () => {
  it.each([
    ['sum by(job)(rate(http_requests_total{job="api"}[5m]))', 'sum by (job) (rate(http_requests_total{job="api"}[5m]))'],
    ['SUM(x) BY (a, b)', 'sum by (a, b) (x)'],
    ['sum by () (x)', 'sum(x)'],
    ['avg without () (x)', 'avg without () (x)'],
    ['topk(5, x) without(a)', 'topk without (a) (5, x)'],
    ['count_values(\'v\', x)', 'count_values("v", x)'],
    ['x[300]', 'x[5m]'],
    ['x[90s]', 'x[1m30s]'],
    ['x[1.5]', 'x[1s500ms]'],
    ['x[0.0001]', 'x[0.0001]'],
    ['x[5m:]', 'x[5m:]'],
    ['x[1h:60]', 'x[1h:1m]'],
    ['x OFFSET 5m @ 100', 'x @ 100.000 offset 5m'],
    ['x[5m] offset -7d @ end()', 'x[5m] @ end() offset -1w'],
    ['rate(x[5m])[30m:1m] offset 1h @ start()', 'rate(x[5m])[30m:1m] @ start() offset 1h'],
    ['x @ 1.5', 'x @ 1.500'],
    ['x{a="b",c!~"d"}', 'x{a="b",c!~"d"}'],
    ['{__name__="x"}', '{__name__="x"}'],
    ['{"my.metric", "service.name"="a"}', '{__name__="my.metric","service.name"="a"}'],
    ['x{a=\'it"s\'}', 'x{a="it\\"s"}'],
    ['x{a=`\\d+`}', 'x{a="\\\\d+"}'],
    ['a+b*c', 'a + b * c'],
    ['(a+b)*c', '(a + b) * c'],
    ['a>bool 1', 'a > bool 1'],
    ['a AND ON(x) b', 'a and on (x) b'],
    ['a + ignoring(x) group_left b', 'a + ignoring (x) group_left () b'],
    ['a + on() group_right(y,z) b', 'a + on () group_right (y, z) b'],
    ['a + ignoring() b', 'a + b'],
    ['a atan2 b', 'a atan2 b'],
    ['sum by ("service.name") (x)', 'sum by ("service.name") (x)'],
    ['-2^2', '-2 ^ 2'],
    ['- -1', '1'],
    ['-(1)', '-(1)'],
    ['+x', '+x'],
    ['0x1f', '31'],
    ['1e21', '1000000000000000000000'],
    ['1e-7', '0.0000001'],
    ['-Inf', '-Inf'],
    ['NaN', 'NaN'],
    ['5m', '5m'],
    ['-90s', '-1m30s'],
    ['"a\\nb"', '"a\\nb"'],
    ['label_replace(x, "a", "b", "c", "(.*)")', 'label_replace(x, "a", "b", "c", "(.*)")'],
    ['time()', 'time()'],
    ['x # comment', 'x'],
  ])('prints %j as %j', (text, expected) => {
    expect(printPromQL(parsePromQL(text))).toBe(expected);
  });

  it.each([
    'sum by (job) (rate(http_requests_total{job="api"}[5m]))',
    'histogram_quantile(0.99, sum without (instance) (rate(x_bucket{le!="+Inf"}[5m:30s] offset 1m)))',
    'a / on(b, c) group_left(d) e + f * -g ^ 2 ^ -h',
    '-(a + b) - -c',
    'x @ 1700000000.123 offset -1m30s',
    'x{a=~"\\\\d+", "ü"="\\u00e9"}',
    'quantile_over_time(0.5, rate(x[5m])[1h:])',
    '(((x)))',
    '1 < bool 2 or vector(1) unless on() vector(0)',
    'count_values("v", x) > bool on(v) group_right() y',
    'topk(3, sum by (a, b) (x)) by (a)',
    'sort_by_label(x, "a", "b")',
    'x[1.5] offset 0.25',
    '-1m + 2h * 3 % 4',
    'Inf + -Inf + NaN',
    'a >/ 1 </ 2',
  ])('round-trips %s to the same tree', (text) => {
    const tree = parsePromQL(text);
    const printed = printPromQL(tree);
    expect(stripPositions(parsePromQL(printed))).toEqual(stripPositions(tree));
    expect(printPromQL(parsePromQL(printed))).toBe(printed);
  });

  describe('trees built by hand', () => {
    const pos = { start: 0, end: 0 };
    const sel = (name: string): Expr => ({
      type: 'VectorSelector',
      name,
      matchers: [{ name: '__name__', op: '=', value: name }],
      offsetMs: 0,
      at: null,
      pos,
      valueType: 'vector',
    });
    const bin = (op: '+' | '*' | '^' | '-', lhs: Expr, rhs: Expr): Expr => ({
      type: 'BinaryExpr',
      op,
      lhs,
      rhs,
      returnBool: false,
      matching: { card: 'one-to-one', on: false, labels: [], include: [] },
      opPos: pos,
      pos,
      valueType: 'vector',
    });
    const num = (value: number): Expr => ({ type: 'NumberLiteral', value, duration: false, pos, valueType: 'scalar' });

    it('adds parentheses where precedence demands them', () => {
      expect(printPromQL(bin('*', bin('+', sel('a'), sel('b')), sel('c')))).toBe('(a + b) * c');
      expect(printPromQL(bin('-', sel('a'), bin('-', sel('b'), sel('c'))))).toBe('a - (b - c)');
      expect(printPromQL(bin('^', bin('^', sel('a'), sel('b')), sel('c')))).toBe('(a ^ b) ^ c');
      expect(printPromQL(bin('^', sel('a'), bin('^', sel('b'), sel('c'))))).toBe('a ^ b ^ c');
      expect(printPromQL(bin('^', num(-2), num(2)))).toBe('(-2) ^ 2');
      expect(printPromQL({ type: 'UnaryExpr', op: '-', expr: bin('+', sel('a'), sel('b')), pos, valueType: 'vector' })).toBe(
        '-(a + b)',
      );
      expect(
        printPromQL({
          type: 'SubqueryExpr',
          expr: bin('+', sel('a'), sel('b')),
          rangeMs: 60_000,
          stepMs: null,
          offsetMs: 0,
          at: null,
          pos,
          valueType: 'matrix',
        }),
      ).toBe('(a + b)[1m:]');
    });

    it('prints a call from its resolved function', () => {
      const func = lookupFunction('abs')!;
      expect(printPromQL({ type: 'Call', func, args: [sel('x')], pos, valueType: 'vector' })).toBe('abs(x)');
    });
  });
});
