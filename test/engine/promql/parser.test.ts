import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { lookupFunction, parsePromQL, type Expr } from '../../../engine/promql/index.js';
import { shape, stripPositions } from './helpers.js';

/** parsed returns the position-free tree of `text`. */
function parsed(text: string): unknown {
  return stripPositions(parsePromQL(text));
}

/** parseFailure returns the INVALID_EXPR message for `text`. */
function parseFailure(text: string, options = {}): string {
  try {
    parsePromQL(text, options);
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('INVALID_EXPR');
    return (err as EngineError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

const sel = (name: string | null, matchers: Array<[string, string, string]> = [], extra: object = {}): object => ({
  type: 'VectorSelector',
  name,
  matchers: [
    ...(name === null ? [] : [{ name: '__name__', op: '=', value: name }]),
    ...matchers.map(([n, op, value]) => ({ name: n, op, value })),
  ],
  offsetMs: 0,
  at: null,
  valueType: 'vector',
  ...extra,
});

const num = (value: number, duration = false): object => ({ type: 'NumberLiteral', value, duration, valueType: 'scalar' });

const matching = (card = 'one-to-one', on = false, labels: string[] = [], include: string[] = []): object => ({
  card,
  on,
  labels,
  include,
});

describe('parsePromQL: node kinds', () => {
  it('parses number literals in every notation', () => {
    const values: Array<[string, number]> = [
      ['1', 1],
      ['0x1f', 31],
      ['0X_1F', 31],
      ['0755', 493],
      ['08', 8],
      ['1_000', 1000],
      ['.5', 0.5],
      ['5.', 5],
      ['123.4567', 123.4567],
      ['5e-3', 0.005],
      ['+5.5e-3', 0.0055],
      ['-0755', -493],
      ['Inf', Infinity],
      ['-inf', -Infinity],
    ];
    for (const [text, value] of values) expect(parsed(text), text).toEqual(num(value));
    expect(Number.isNaN((parsePromQL('NaN') as { value: number }).value)).toBe(true);
  });

  it('reads a duration where a number is expected as its seconds', () => {
    expect(parsed('5m')).toEqual(num(300, true));
    expect(parsed('-1h30m')).toEqual(num(-5400, true));
  });

  it('decodes all three string quotings', () => {
    expect(parsed('"a\\tb\\u00e9"')).toEqual({ type: 'StringLiteral', value: 'a\tbé', valueType: 'string' });
    expect(parsed("'it\\'s'")).toEqual({ type: 'StringLiteral', value: "it's", valueType: 'string' });
    expect(parsed('`raw\\n`')).toEqual({ type: 'StringLiteral', value: 'raw\\n', valueType: 'string' });
  });

  it('parses vector selectors with every matcher operator', () => {
    expect(parsed('http_requests_total{job="api", code!="500", path=~"/a.*", method!~"GET|HEAD",}')).toEqual(
      sel('http_requests_total', [
        ['job', '=', 'api'],
        ['code', '!=', '500'],
        ['path', '=~', '/a.*'],
        ['method', '!~', 'GET|HEAD'],
      ]),
    );
    expect(parsed('foo:bar:rate5m')).toEqual(sel('foo:bar:rate5m'));
    expect(parsed('foo{}')).toEqual(sel('foo'));
  });

  it('parses metric names given as __name__ and as quoted UTF-8 names', () => {
    expect(parsed('{__name__="x"}')).toEqual(sel(null, [['__name__', '=', 'x']]));
    expect(parsed('{"my.metric", "label.with.dots"="v"}')).toEqual(
      sel(null, [
        ['__name__', '=', 'my.metric'],
        ['label.with.dots', '=', 'v'],
      ]),
    );
    expect(parsed('{job="a", "my.metric"}')).toEqual(
      sel(null, [
        ['job', '=', 'a'],
        ['__name__', '=', 'my.metric'],
      ]),
    );
  });

  it('parses offsets, @ timestamps and the start()/end() preprocessors', () => {
    expect(parsed('foo offset 5m')).toEqual(sel('foo', [], { offsetMs: 300_000 }));
    expect(parsed('foo offset -1h')).toEqual(sel('foo', [], { offsetMs: -3_600_000 }));
    expect(parsed('foo offset 1.5')).toEqual(sel('foo', [], { offsetMs: 1500 }));
    expect(parsed('foo @ 1609746000')).toEqual(sel('foo', [], { at: { kind: 'timestamp', ms: 1609746000000 } }));
    expect(parsed('foo @ -1.5')).toEqual(sel('foo', [], { at: { kind: 'timestamp', ms: -1500 } }));
    expect(parsed('foo @ start()')).toEqual(sel('foo', [], { at: { kind: 'start' } }));
    expect(parsed('foo @ END() OFFSET 1m')).toEqual(sel('foo', [], { at: { kind: 'end' }, offsetMs: 60_000 }));
    expect(parsed('foo offset 1m @ 10')).toEqual(sel('foo', [], { at: { kind: 'timestamp', ms: 10_000 }, offsetMs: 60_000 }));
  });

  it('parses range selectors with duration and float-second ranges', () => {
    const matrix = (rangeMs: number, selector: object = sel('foo')): object => ({
      type: 'MatrixSelector',
      selector,
      rangeMs,
      valueType: 'matrix',
    });
    expect(parsed('foo[5m]')).toEqual(matrix(300_000));
    expect(parsed('foo[1h30m]')).toEqual(matrix(5_400_000));
    expect(parsed('foo[300]')).toEqual(matrix(300_000));
    expect(parsed('foo[1.5]')).toEqual(matrix(1500));
    expect(parsed('foo[ 2d ]')).toEqual(matrix(172_800_000));
    expect(parsed('foo[5m] offset 1w @ 100')).toEqual(
      matrix(300_000, sel('foo', [], { offsetMs: 604_800_000, at: { kind: 'timestamp', ms: 100_000 } })),
    );
  });

  it('parses subqueries with and without a step', () => {
    const rate = parsePromQL('rate(foo[1m])');
    expect(parsed('rate(foo[1m])[1h:5m] offset 10m @ end()')).toEqual({
      type: 'SubqueryExpr',
      expr: stripPositions(rate),
      rangeMs: 3_600_000,
      stepMs: 300_000,
      offsetMs: 600_000,
      at: { kind: 'end' },
      valueType: 'matrix',
    });
    expect(shape(parsePromQL('foo[30m:]'))).toBe('(subquery foo 1800000 _)');
    expect(shape(parsePromQL('(foo + bar)[5m:30s]'))).toBe('(subquery [(+ foo bar)] 300000 30000)');
    expect(shape(parsePromQL('foo[5m:][10m:1m]'))).toBe('(subquery (subquery foo 300000 _) 600000 60000)');
  });

  it('parses aggregations with the grouping clause before or after', () => {
    const expected = {
      type: 'AggregateExpr',
      op: 'sum',
      expr: sel('foo'),
      param: null,
      grouping: ['job', 'instance'],
      without: false,
      valueType: 'vector',
    };
    expect(parsed('sum by (job, instance) (foo)')).toEqual(expected);
    expect(parsed('sum(foo) by (job, instance,)')).toEqual(expected);
    expect(parsed('SUM BY(job,instance)(foo)')).toEqual(expected);
    expect(parsed('avg without (a) (foo)')).toMatchObject({ op: 'avg', grouping: ['a'], without: true });
    expect(parsed('count by () (foo)')).toMatchObject({ op: 'count', grouping: [], without: false });
  });

  it('parses every aggregation operator, with its parameter where it takes one', () => {
    for (const op of ['sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar']) {
      expect(parsed(`${op}(foo)`)).toMatchObject({ type: 'AggregateExpr', op, param: null });
    }
    expect(parsed('topk(3, foo)')).toMatchObject({ op: 'topk', param: num(3), expr: sel('foo') });
    expect(parsed('bottomk(3, foo)')).toMatchObject({ op: 'bottomk', param: num(3) });
    expect(parsed('quantile(0.9, foo)')).toMatchObject({ op: 'quantile', param: num(0.9) });
    expect(parsed('limitk(2, foo)')).toMatchObject({ op: 'limitk', param: num(2) });
    expect(parsed('limit_ratio(0.5, foo)')).toMatchObject({ op: 'limit_ratio', param: num(0.5) });
    expect(parsed('count_values("v", foo)')).toMatchObject({
      op: 'count_values',
      param: { type: 'StringLiteral', value: 'v' },
    });
  });

  it('parses binary operators with bool and vector matching modifiers', () => {
    expect(parsed('a > bool 1')).toEqual({
      type: 'BinaryExpr',
      op: '>',
      lhs: sel('a'),
      rhs: num(1),
      returnBool: true,
      matching: matching(),
      valueType: 'vector',
    });
    expect(parsed('a / on(job, instance) group_left(version) b')).toMatchObject({
      op: '/',
      matching: matching('many-to-one', true, ['job', 'instance'], ['version']),
    });
    expect(parsed('a - ignoring(code) group_right b')).toMatchObject({
      matching: matching('one-to-many', false, ['code'], []),
    });
    expect(parsed('a == bool on() b')).toMatchObject({ returnBool: true, matching: matching('one-to-one', true, []) });
    expect(parsed('a and on(x) b')).toMatchObject({ op: 'and', matching: matching('many-to-many', true, ['x']) });
    expect(parsed('a unless b')).toMatchObject({ op: 'unless', matching: matching('many-to-many') });
    expect(parsed('a atan2 b')).toMatchObject({ op: 'atan2' });
    expect(parsed('h </ 0.5')).toMatchObject({ op: '</' });
    expect(parsed('h >/ 0.5')).toMatchObject({ op: '>/' });
    expect(parsed('1 + 2')).toMatchObject({ valueType: 'scalar' });
  });

  it('parses unary operators, folding signs into number literals', () => {
    expect(parsed('-foo')).toEqual({ type: 'UnaryExpr', op: '-', expr: sel('foo'), valueType: 'vector' });
    expect(parsed('+foo')).toEqual({ type: 'UnaryExpr', op: '+', expr: sel('foo'), valueType: 'vector' });
    expect(parsed('-1')).toEqual(num(-1));
    expect(parsed('- -1')).toEqual(num(1));
    expect(parsed('-(1)')).toEqual({ type: 'UnaryExpr', op: '-', expr: { type: 'ParenExpr', expr: num(1), valueType: 'scalar' }, valueType: 'scalar' });
  });

  it('parses function calls against the function table', () => {
    const tree = parsePromQL('label_replace(up, "dst", "$1", "src", "(.*)")');
    expect(tree.type).toBe('Call');
    if (tree.type !== 'Call') return;
    expect(tree.func).toBe(lookupFunction('label_replace'));
    expect(tree.args.map((a) => a.type)).toEqual(['VectorSelector', 'StringLiteral', 'StringLiteral', 'StringLiteral', 'StringLiteral']);
    expect(parsed('time()')).toMatchObject({ type: 'Call', args: [], valueType: 'scalar' });
    expect(parsed('vector(1)')).toMatchObject({ type: 'Call', valueType: 'vector' });
  });

  it('keeps parentheses as nodes', () => {
    expect(parsed('((foo))')).toEqual({
      type: 'ParenExpr',
      expr: { type: 'ParenExpr', expr: sel('foo'), valueType: 'vector' },
      valueType: 'vector',
    });
  });

  it('ignores comments and whitespace, including newlines', () => {
    expect(parsed('sum(\n  rate(foo[5m]) # per second\n) # total')).toEqual(parsed('sum(rate(foo[5m]))'));
  });
});

describe('parsePromQL: positions', () => {
  it('gives every node its source range', () => {
    const text = 'sum by (job) (rate(foo{a="b"}[5m] offset 1m)) + -2';
    const tree = parsePromQL(text);
    const slices: string[] = [];
    const visit = (node: Expr): void => {
      slices.push(`${node.type}:${text.slice(node.pos.start, node.pos.end)}`);
      if (node.type === 'BinaryExpr') [node.lhs, node.rhs].forEach(visit);
      if (node.type === 'AggregateExpr') visit(node.expr);
      if (node.type === 'Call') node.args.forEach(visit);
      if (node.type === 'MatrixSelector') visit(node.selector);
    };
    visit(tree);
    expect(slices).toEqual([
      'BinaryExpr:sum by (job) (rate(foo{a="b"}[5m] offset 1m)) + -2',
      'AggregateExpr:sum by (job) (rate(foo{a="b"}[5m] offset 1m))',
      'Call:rate(foo{a="b"}[5m] offset 1m)',
      'MatrixSelector:foo{a="b"}[5m] offset 1m',
      'VectorSelector:foo{a="b"}',
      'NumberLiteral:-2',
    ]);
    if (tree.type === 'BinaryExpr') expect(text.slice(tree.opPos.start, tree.opPos.end)).toBe('+');
  });

  it('ends an aggregation at a trailing grouping clause', () => {
    const text = 'sum(foo) by (job)';
    expect(parsePromQL(text).pos).toEqual({ start: 0, end: text.length });
  });
});

describe('parsePromQL: precedence and associativity', () => {
  it.each([
    ['-2^2', '(- (^ 2 2))'],
    ['-2^-2', '(- (^ 2 -2))'],
    ['2^3^2', '(^ 2 (^ 3 2))'],
    ['-a * b', '(* (- a) b)'],
    ['-a ^ b', '(- (^ a b))'],
    ['a - b - c', '(- (- a b) c)'],
    ['a / b * c % d', '(% (* (/ a b) c) d)'],
    ['a + b * c', '(+ a (* b c))'],
    ['a atan2 b + c', '(+ (atan2 a b) c)'],
    ['a + b > c - d', '(> (+ a b) (- c d))'],
    ['a == b == c', '(== (== a b) c)'],
    ['a or b and c', '(or a (and b c))'],
    ['a and b or c unless d', '(or (and a b) (unless c d))'],
    ['a unless b and c', '(and (unless a b) c)'],
    ['a or b or c', '(or (or a b) c)'],
    ['1 < bool 2 - 1 * 2', '(< bool 1 (- 2 (* 1 2)))'],
    ['+1 + -2 * 1', '(+ 1 (* -2 1))'],
    ['a + b offset 5m', '(+ a (offset b 300000))'],
    ['-a offset 1m', '(- (offset a 60000))'],
    ['a * b[5m:]', '(* a (subquery b 300000 _))'],
    ['a ^ b @ 10', '(^ a (@ b 10000))'],
    ['h </ 1 + 2', '(</ h (+ 1 2))'],
  ])('parses %s as %s', (text, expected) => {
    expect(shape(parsePromQL(text))).toBe(expected);
  });
});

describe('parsePromQL: keywords as names', () => {
  it('accepts keywords as grouping and matching labels', () => {
    expect(parsed('sum by (by, on, offset, bool, ignoring, group_left, sum, and, start, end) (x)')).toMatchObject({
      grouping: ['by', 'on', 'offset', 'bool', 'ignoring', 'group_left', 'sum', 'and', 'start', 'end'],
    });
    expect(parsed('a + on(group_right, atan2) b')).toMatchObject({ matching: { labels: ['group_right', 'atan2'] } });
    expect(parsed('sum by ("service.name", le) (x)')).toMatchObject({ grouping: ['service.name', 'le'] });
  });

  it('keeps the spelling of keyword labels', () => {
    expect(parsed('sum by (BY) (x)')).toMatchObject({ grouping: ['BY'] });
  });

  it('accepts keywords as metric names where Prometheus does', () => {
    for (const name of ['sum', 'by', 'without', 'offset', 'and', 'or', 'unless', 'start', 'end', 'step', 'range', 'topk']) {
      expect(parsed(name), name).toEqual(sel(name));
    }
    expect(parsed('sum + count')).toMatchObject({ lhs: sel('sum'), rhs: sel('count') });
    expect(parsed('offset offset 5m')).toEqual(sel('offset', [], { offsetMs: 300_000 }));
    expect(parsed('foo and and')).toMatchObject({ op: 'and', rhs: sel('and') });
    expect(parsed('fill + fill_left')).toMatchObject({ lhs: sel('fill'), rhs: sel('fill_left') });
    expect(parsed('by{job="x"}')).toEqual(sel('by', [['job', '=', 'x']]));
  });

  it('accepts keywords as matcher label names', () => {
    expect(parsed('foo{on="1", by="2", bool="3"}')).toEqual(
      sel('foo', [
        ['on', '=', '1'],
        ['by', '=', '2'],
        ['bool', '=', '3'],
      ]),
    );
  });

  it('rejects the keywords Prometheus reserves', () => {
    expect(parseFailure('on')).toBe('1:1: parse error: unexpected <on>');
    expect(parseFailure('sum without (without) (x)')).toBe(
      '1:14: parse error: unexpected <without> in grouping opts, expected label',
    );
  });
});

describe('parsePromQL: syntax errors', () => {
  it.each([
    ['', '1:1: parse error: no expression found in input'],
    ['# only a comment', '1:1: parse error: no expression found in input'],
    ['1+', '1:3: parse error: unexpected end of input'],
    ['*1', '1:1: parse error: unexpected <op:*>'],
    ['foo bar', '1:5: parse error: unexpected identifier "bar"'],
    ['(1))', "1:5: parse error: unexpected right parenthesis ')'"],
    ['sum(rate(', '1:10: parse error: unclosed left parenthesis'],
    ['2.5.', '1:1: parse error: bad number or duration syntax: "2.5."'],
    ['foo[5mm]', '1:5: parse error: bad number or duration syntax: "5mm"'],
    ['foo[5m1h]', '1:5: parse error: not a valid duration string: "5m1h"'],
    ['foo[5y1hs]', '1:5: parse error: unknown unit "hs" in duration "5y1hs"'],
    ['foo[0m]', '1:5: parse error: duration must be greater than 0'],
    ['foo[-1]', '1:5: parse error: duration must be greater than 0'],
    ['foo[5m:0s]', '1:8: parse error: duration must be greater than 0'],
    ['foo[9.5e10]', '1:5: parse error: duration out of range'],
    ['foo offset 9.5e10', '1:12: parse error: duration out of range'],
    ['foo[]', '1:5: parse error: unexpected "]" in subquery or range selector, expected number, duration, step(), or range()'],
    ['foo[5m', '1:7: parse error: unclosed left bracket'],
    ['foo[5m:1m', '1:10: parse error: unclosed left bracket'],
    ['foo[5m:,]', '1:8: parse error: unexpected "," in subquery selector, expected number, duration, step(), range(), or "]"'],
    ['foo[5m,]', '1:7: parse error: unexpected "," in subquery or range, expected ":" or "]"'],
    ['foo[5m:1m,]', '1:10: parse error: unexpected "," in subquery selector, expected "]"'],
    ['foo offset', '1:11: parse error: unexpected end of input in offset, expected number, duration, step(), or range()'],
    ['foo @', '1:6: parse error: unexpected end of input in @, expected timestamp'],
    ['foo @ start', '1:12: parse error: unexpected end of input in @, expected timestamp'],
    ['foo @ +Inf', '1:1: parse error: timestamp out of bounds for @ modifier: +Inf'],
    ['foo @ NaN', '1:1: parse error: timestamp out of bounds for @ modifier: NaN'],
    ['foo offset 1s offset 2s', '1:1: parse error: offset may not be set multiple times'],
    ['foo @ 1 @ 2', '1:1: parse error: @ <timestamp> may not be set multiple times'],
    ['foo[5m] @ 1 @ 2', '1:1: parse error: @ <timestamp> may not be set multiple times'],
    ['1 offset 1d', '1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery'],
    ['rate(x[5m]) @ 100', '1:1: parse error: @ modifier must be preceded by an instant vector selector or range vector selector or a subquery'],
    ['(foo + bar)[5m]', '1:12: parse error: ranges only allowed for vector selectors'],
    ['(foo)[5m]', '1:6: parse error: ranges only allowed for vector selectors'],
    ['foo offset 1m[5m]', '1:14: parse error: no offset modifiers allowed before range'],
    ['foo @ 123 [5m]', '1:11: parse error: no @ modifiers allowed before range'],
    ['{', '1:2: parse error: unexpected end of input inside braces'],
    ['}', "1:1: parse error: unexpected character: '}'"],
    ['foo{a=b}', '1:7: parse error: unexpected identifier "b" in label matching, expected string'],
    ['foo{gibberish}', '1:14: parse error: unexpected "}" in label matching, expected label matching operator'],
    ['foo{,}', '1:5: parse error: unexpected "," in label matching, expected identifier or "}"'],
    ['foo{a="b" c="d"}', '1:11: parse error: unexpected identifier "c" in label matching, expected "," or "}"'],
    ['foo{"a"=}', '1:9: parse error: unexpected "}" in label matching, expected string'],
    ['foo{a:b="c"}', "1:6: parse error: unexpected character inside braces: ':'"],
    ['foo{a=~"(x"}', '1:5: parse error: error parsing regexp: missing closing ): `(x`'],
    ['foo{a=~"(a{2}){1000}"}', '1:5: parse error: error parsing regexp: invalid repeat count: `{1000}`'],
    // Past the engine's program-size budget: 101 × 1000 instructions.
    [`foo{a=~"${'\\\\pL{1000}'.repeat(101)}"}`, `1:5: parse error: error parsing regexp: expression too large: \`${'\\pL{1000}'.repeat(101)}\``],
    ['{}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['{x=""}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['{x=~".*"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['{x!~".+"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['{x!="a"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['foo{__name__="bar"}', '1:1: parse error: metric name must not be set twice: "foo" or "bar"'],
    ['foo{"bar"}', '1:1: parse error: metric name must not be set twice: "foo" or "bar"'],
    ['sum without(==)(x)', '1:13: parse error: unexpected <op:==> in grouping opts, expected label'],
    ['sum without(foo,,)(x)', '1:17: parse error: unexpected "," in grouping opts, expected label'],
    ['sum by (a b) (x)', '1:11: parse error: unexpected identifier "b" in grouping opts, expected "," or ")"'],
    ['sum (x) by test', '1:12: parse error: unexpected identifier "test" in grouping opts, expected "("'],
    ['sum by ("") (x)', '1:9: parse error: invalid label name for grouping: ""'],
    ['sum x', '1:5: parse error: unexpected identifier "x"'],
    ['sum by (a) x', '1:12: parse error: unexpected identifier "x" in aggregation'],
    ['sum(a b)', '1:7: parse error: unexpected identifier "b" in aggregation'],
    ['rate(a b)', '1:8: parse error: unexpected identifier "b"'],
    ['sum (x) without (a) by (b)', '1:21: parse error: unexpected <by>'],
    ['sum()', '1:1: parse error: no arguments for aggregate expression provided'],
    ['topk(x)', '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1'],
    ['sum(a, b)', '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 1, got 2'],
    ['rate(x[5m],)', '1:11: parse error: trailing commas not allowed in function call args'],
    ['non_existent(x)', '1:1: parse error: unknown function with name "non_existent"'],
    ['RATE(x[5m])', '1:1: parse error: unknown function with name "RATE"'],
    ['a - on(b) ignoring(c) d', '1:11: parse error: unexpected <ignoring>'],
    ['foo + group_left(baz) bar', '1:7: parse error: unexpected <group_left>'],
    ['foo[5m:] smoothed', '1:1: parse error: smoothed modifier is experimental and not enabled'],
    ['foo[5m] anchored', '1:1: parse error: anchored modifier is experimental and not enabled'],
    ['foo[5m+1m]', '1:5: parse error: experimental duration expression is not enabled'],
    ['foo[step()]', '1:5: parse error: experimental duration expression is not enabled'],
    ['foo offset (5m)', '1:12: parse error: experimental duration expression is not enabled'],
    ['a + fill(0) b', '1:1: parse error: binop fill modifiers are experimental and not enabled'],
    ['"\\c"', "1:1: parse error: unknown escape sequence U+0063 'c'"],
    ['999e999', '1:1: parse error: error parsing number: strconv.ParseFloat: parsing "999e999": value out of range'],
  ])('rejects %j', (text, message) => {
    expect(parseFailure(text)).toBe(message);
  });

  it('reports line and column on later lines', () => {
    expect(parseFailure('sum(\n  rate(x[5m])\n  foo\n)')).toBe('3:3: parse error: unexpected identifier "foo" in aggregation');
  });

  it('counts columns in UTF-16 code units', () => {
    expect(parseFailure('{"é😀"="x"} bad')).toBe('1:13: parse error: unexpected identifier "bad"');
  });

  it('reports every error that leaves the structure intact', () => {
    expect(parseFailure('topk(x,) + foo offset 1m offset 2m')).toBe(
      [
        '1:7: parse error: trailing commas not allowed in function call args',
        '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1',
        '1:12: parse error: offset may not be set multiple times',
      ].join('\n'),
    );
  });

  it('carries the position of the first error', () => {
    try {
      parsePromQL('foo + ');
    } catch (err) {
      expect((err as EngineError).position).toEqual({ start: 6, end: 6 });
      return;
    }
    throw new Error('expected a parse error');
  });

  it('rejects experimental functions and aggregations when asked to', () => {
    const strict = { experimentalFunctions: false };
    expect(parseFailure('mad_over_time(x[5m])', strict)).toBe('1:1: parse error: function "mad_over_time" is not enabled');
    expect(parseFailure('limitk(1, x)', strict)).toBe(
      '1:1: parse error: limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions',
    );
    expect(parsePromQL('mad_over_time(x[5m])').type).toBe('Call');
  });

  it('judges regex matchers by whether they can match the empty value', () => {
    expect(parsed('{a=~"a+"}')).toEqual(sel(null, [['a', '=~', 'a+']]));
    expect(parsed('{a=~"(?i:PRO).*x"}')).toEqual(sel(null, [['a', '=~', '(?i:PRO).*x']]));
    expect(parsed('{a!~""}')).toEqual(sel(null, [['a', '!~', '']]));
    expect(parseFailure('{a=~"b|"}')).toBe('1:1: parse error: vector selector must contain at least one non-empty matcher');
    expect(parseFailure('{a=~"(?m)^$"}')).toBe('1:1: parse error: vector selector must contain at least one non-empty matcher');
    expect(parseFailure('{a=~"x**"}')).toBe('1:2: parse error: error parsing regexp: invalid nested repetition operator: `**`');
  });

  it('exempts info() label selectors from the non-empty matcher rule', () => {
    expect(parsed('info(foo, {env=~".*"})')).toMatchObject({ type: 'Call', args: [sel('foo'), sel(null, [['env', '=~', '.*']])] });
  });
});
