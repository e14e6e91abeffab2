import { describe, expect, it } from 'vitest';
import {
  RANGE_AGGREGATION_OPS,
  VECTOR_AGGREGATION_OPS,
  isLogQuery,
  isMetricQuery,
  parseLogQL,
  queryKind,
  walkExpr,
} from '../../../engine/logql/index.js';
import type { BinaryExpr, Expr, RangeAggregationExpr, VectorAggregationExpr } from '../../../engine/logql/index.js';
import { withoutPositions } from './helpers.js';

function parsed(text: string): Expr {
  return withoutPositions(parseLogQL(text));
}

function rangeAggregation(text: string): RangeAggregationExpr {
  const expr = parsed(text);
  expect(expr.kind).toBe('RangeAggregation');
  return expr as RangeAggregationExpr;
}

describe('range aggregations', () => {
  it('parses every range aggregation function', () => {
    for (const op of RANGE_AGGREGATION_OPS) {
      const expr = rangeAggregation(`${op}({app="a"}[5m])`);
      expect(expr.op).toBe(op);
      expect(expr.range).toEqual({
        kind: 'LogRange',
        selector: { kind: 'LogSelector', matchers: [{ kind: 'LabelMatcher', name: 'app', op: '=', value: 'a' }], pipeline: [] },
        rangeMs: 300_000,
        offsetMs: 0,
      });
    }
  });

  it('parses quantile_over_time with its parameter and grouping', () => {
    const expr = rangeAggregation('quantile_over_time(0.99, {app="a"} | logfmt | unwrap latency [1m]) by (pod, app)');
    expect(expr).toMatchObject({
      op: 'quantile_over_time',
      param: { kind: 'NumberLiteral', value: 0.99 },
      grouping: { kind: 'Grouping', without: false, labels: ['pod', 'app'] },
      range: { unwrap: { kind: 'Unwrap', label: 'latency', postFilters: [] } },
    });
  });

  it('parses offsets, including negative ones', () => {
    expect(rangeAggregation('rate({a="b"}[20s] offset 90s)').range.offsetMs).toBe(90_000);
    expect(rangeAggregation('rate({a="b"}[20s] offset -1m)').range.offsetMs).toBe(-60_000);
  });

  it('parses unwrap conversions and post filters', () => {
    expect(rangeAggregation('sum_over_time({a="b"} | unwrap bytes(size) [1m])').range.unwrap).toEqual({
      kind: 'Unwrap',
      label: 'size',
      conversion: 'bytes',
      postFilters: [],
    });
    expect(rangeAggregation('avg_over_time({a="b"} | json | unwrap duration_seconds(took) | took > 1s | x="y" [1m])').range.unwrap).toEqual({
      kind: 'Unwrap',
      label: 'took',
      conversion: 'duration_seconds',
      postFilters: [
        { kind: 'DurationLabelFilter', name: 'took', op: '>', durationMs: 1000 },
        { kind: 'StringLabelFilter', name: 'x', op: '=', value: 'y' },
      ],
    });
    expect(rangeAggregation('max_over_time({a="b"} | unwrap duration(took) [1m])').range.unwrap?.conversion).toBe('duration');
  });

  it('accepts the placements of range, offset and unwrap that Loki accepts', () => {
    const canonical = rangeAggregation('sum_over_time({a="b"} | json | unwrap v [1m] offset 5m)');
    const variants = [
      'sum_over_time({a="b"}[1m] offset 5m | json | unwrap v)',
      'sum_over_time(({a="b"} | json | unwrap v)[1m] offset 5m)',
      'sum_over_time(({a="b"} | json | unwrap v [1m] offset 5m))',
      'sum_over_time(({a="b"} | json) | unwrap v [1m] offset 5m)',
    ];
    for (const text of variants) expect(rangeAggregation(text), text).toEqual(canonical);
  });

  it('parses ranges around parenthesised log queries', () => {
    expect(rangeAggregation('rate(({app=~"foo|bar"} |~".+bar")[1m])')).toEqual(rangeAggregation('rate({app=~"foo|bar"} |~ ".+bar" [1m])'));
  });

  it('positions the log range and selector', () => {
    const text = 'count_over_time({a="b"} |= "x" [5m] offset 1m) ';
    const expr = parseLogQL(text) as RangeAggregationExpr;
    expect(text.slice(expr.range.pos.start, expr.range.pos.end)).toBe('{a="b"} |= "x" [5m] offset 1m');
    expect(text.slice(expr.range.selector.pos.start, expr.range.selector.pos.end)).toBe('{a="b"} |= "x"');
    expect(text.slice(expr.pos.start, expr.pos.end)).toBe(text.trim());
  });
});

describe('vector aggregations', () => {
  it('parses every vector aggregation', () => {
    for (const op of VECTOR_AGGREGATION_OPS) {
      const text = op.includes('topk') || op === 'bottomk' ? `${op}(3, rate({a="b"}[1m]))` : `${op}(rate({a="b"}[1m]))`;
      const expr = parsed(text) as VectorAggregationExpr;
      expect(expr.kind).toBe('VectorAggregation');
      expect(expr.op).toBe(op);
      expect(expr.expr.kind).toBe('RangeAggregation');
    }
  });

  it('accepts grouping before or after the arguments', () => {
    const before = parsed('sum by (app) (count_over_time({a="b"}[1m]))');
    expect(parsed('sum(count_over_time({a="b"}[1m])) by (app)')).toEqual(before);
    expect(before).toMatchObject({ grouping: { without: false, labels: ['app'] } });
    expect(parsed('avg without (pod, zone) (count_over_time({a="b"}[1m]))')).toMatchObject({
      grouping: { without: true, labels: ['pod', 'zone'] },
    });
    expect(parsed('count without () (count_over_time({a="b"}[1m]))')).toMatchObject({ grouping: { without: true, labels: [] } });
  });

  it('parses the topk parameter and grouping', () => {
    expect(parsed('topk by (app) (5, count_over_time({a="b"}[1m]))')).toMatchObject({
      op: 'topk',
      param: { value: 5 },
      grouping: { labels: ['app'] },
    });
  });

  it('is case-insensitive for keywords and function names', () => {
    expect(parsed('SUM BY (app) (COUNT_OVER_TIME({a="b"}[1m]))')).toEqual(parsed('sum by (app) (count_over_time({a="b"}[1m]))'));
  });
});

describe('binary expressions', () => {
  it('follows Loki precedence: or < and/unless < comparisons < +- < */% < ^', () => {
    const expr = parsed('1 + 2 * 3 ^ 2') as BinaryExpr;
    expect(expr).toMatchObject({ op: '+', lhs: { value: 1 }, rhs: { op: '*', lhs: { value: 2 }, rhs: { op: '^' } } });
    const set = parsed('vector(1) or vector(2) and vector(3) > 1') as BinaryExpr;
    expect(set).toMatchObject({ op: 'or', rhs: { op: 'and', rhs: { op: '>' } } });
  });

  it('groups equal precedence left, except ^ which groups right', () => {
    expect(parsed('1 - 2 - 3')).toMatchObject({ op: '-', lhs: { op: '-', lhs: { value: 1 }, rhs: { value: 2 } }, rhs: { value: 3 } });
    expect(parsed('2 ^ 3 ^ 2')).toMatchObject({ op: '^', lhs: { value: 2 }, rhs: { op: '^', lhs: { value: 3 } } });
  });

  it('parses bool and vector matching modifiers', () => {
    expect(parsed('sum(rate({a="b"}[1m])) > bool 1')).toMatchObject({ op: '>', returnBool: true });
    expect(parsed('rate({a="b"}[1m]) / on (app) group_left (pod) rate({a="c"}[1m])')).toMatchObject({
      op: '/',
      matching: { kind: 'VectorMatching', on: true, labels: ['app'], card: 'many-to-one', include: ['pod'] },
    });
    expect(parsed('rate({a="b"}[1m]) * ignoring () group_right rate({a="c"}[1m])')).toMatchObject({
      matching: { on: false, labels: [], card: 'one-to-many', include: [] },
    });
    expect(parsed('rate({a="b"}[1m]) == bool on () rate({a="c"}[1m])')).toMatchObject({ returnBool: true, matching: { on: true } });
  });

  it('keeps a log query operand for the checker to reject', () => {
    expect(parsed('{a="b"} + 1')).toMatchObject({ kind: 'BinaryExpr', lhs: { kind: 'LogSelector' }, rhs: { value: 1 } });
  });

  it('parses signed literals, including a negative right operand', () => {
    expect(parsed('-1 - -2')).toMatchObject({ op: '-', lhs: { value: -1 }, rhs: { value: -2 } });
    expect(parsed('+3')).toEqual({ kind: 'NumberLiteral', value: 3 });
  });

  it('positions a binary expression across both operands', () => {
    const text = '(1 + 2) * 3';
    expect(parseLogQL(text).pos).toEqual({ start: 0, end: text.length });
  });
});

describe('other metric expressions', () => {
  it('parses vector()', () => {
    expect(parsed('vector(1.5)')).toEqual({ kind: 'Vector', value: 1.5 });
  });

  it('parses label_replace()', () => {
    expect(parsed('label_replace(rate({a="b"}[1m]), "dst", "$1", "src", "(.*)")')).toMatchObject({
      kind: 'LabelReplace',
      expr: { kind: 'RangeAggregation' },
      dst: 'dst',
      replacement: '$1',
      src: 'src',
      regex: '(.*)',
    });
  });

  it('parses numbers in Go syntax', () => {
    expect(parsed('1.5e3')).toEqual({ kind: 'NumberLiteral', value: 1500 });
    expect(parsed('0x1p4')).toEqual({ kind: 'NumberLiteral', value: 16 });
  });
});

describe('query kind helpers', () => {
  it('tells log queries from metric queries', () => {
    const log = parseLogQL('{a="b"} |= "x"');
    const metric = parseLogQL('sum(rate({a="b"}[1m]))');
    expect(queryKind(log)).toBe('log');
    expect(queryKind(metric)).toBe('metric');
    expect(isLogQuery(log) && !isMetricQuery(log)).toBe(true);
    expect(isMetricQuery(metric) && !isLogQuery(metric)).toBe(true);
    expect(queryKind(parseLogQL('vector(1)'))).toBe('metric');
  });

  it('walks every expression, selectors included, parents first', () => {
    const kinds: string[] = [];
    walkExpr(parseLogQL('sum(rate({a="b"}[1m])) / label_replace(vector(1), "a", "", "b", "")'), (node) => {
      kinds.push(node.kind);
    });
    expect(kinds).toEqual(['BinaryExpr', 'VectorAggregation', 'RangeAggregation', 'LogSelector', 'LabelReplace', 'Vector']);
  });
});
