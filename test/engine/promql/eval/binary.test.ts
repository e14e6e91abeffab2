import { describe, expect, it } from 'vitest';
import { byLabels, headWith, key, range, regular, scalarOf, STALE, vectorOf } from './helpers.js';
import type { BinaryExpr } from '../../../../engine/promql/ast.js';
import { parseAndCheckPromQL } from '../../../../engine/promql/index.js';
import { setOperation, vectorVector } from '../../../../engine/promql/eval/binary.js';
import { EvalContext } from '../../../../engine/promql/eval/context.js';
import { makeGrid } from '../../../../engine/promql/eval/grid.js';
import type { VectorSeries } from '../../../../engine/promql/eval/series.js';
import type { MetricQuerier } from '../../../../engine/storage/metricHead.js';
import { SeededRandom } from '../../../support/seededRandom.js';

const head = headWith([
  { labels: { __name__: 'node_cpu', instance: 'a', mode: 'idle', job: 'node' }, samples: [[0, 10]] },
  { labels: { __name__: 'node_cpu', instance: 'a', mode: 'user', job: 'node' }, samples: [[0, 30]] },
  { labels: { __name__: 'node_cpu', instance: 'b', mode: 'idle', job: 'node' }, samples: [[0, 40]] },
  { labels: { __name__: 'node_role', instance: 'a', role: 'db' }, samples: [[0, 1]] },
  { labels: { __name__: 'node_role', instance: 'b', role: 'web' }, samples: [[0, 1]] },
  { labels: { __name__: 'dup', label: 'alpha', k: 'x' }, samples: [[0, 1]] },
  { labels: { __name__: 'dup', label: 'beta', k: 'x' }, samples: [[0, 2]] },
  { labels: { __name__: 'one', k: 'x' }, samples: [[0, 5]] },
]);

describe('vector matching', () => {
  it('matches one-to-one on all labels but the name', () => {
    const h = headWith([
      { labels: { __name__: 'a', x: '1' }, samples: [[0, 3]] },
      { labels: { __name__: 'b', x: '1' }, samples: [[0, 4]] },
      { labels: { __name__: 'b', x: '2' }, samples: [[0, 5]] },
    ]);
    expect(byLabels(vectorOf(h, 'a + b', 0))).toEqual({ [key({ x: '1' })]: 7 });
    expect(byLabels(vectorOf(h, 'a < b', 0))).toEqual({ [key({ __name__: 'a', x: '1' })]: 3 });
    expect(byLabels(vectorOf(h, 'a > bool b', 0))).toEqual({ [key({ x: '1' })]: 0 });
  });

  it('group_left copies the included labels from the one side', () => {
    expect(byLabels(vectorOf(head, 'node_cpu * on (instance) group_left (role) node_role', 0))).toEqual({
      [key({ instance: 'a', mode: 'idle', job: 'node', role: 'db' })]: 10,
      [key({ instance: 'a', mode: 'user', job: 'node', role: 'db' })]: 30,
      [key({ instance: 'b', mode: 'idle', job: 'node', role: 'web' })]: 40,
    });
    expect(byLabels(vectorOf(head, 'node_role * on (instance) group_right (role) node_cpu', 0))).toEqual({
      [key({ instance: 'a', mode: 'idle', job: 'node', role: 'db' })]: 10,
      [key({ instance: 'a', mode: 'user', job: 'node', role: 'db' })]: 30,
      [key({ instance: 'b', mode: 'idle', job: 'node', role: 'web' })]: 40,
    });
  });

  it('keeps only the on() labels in one-to-one results', () => {
    expect(byLabels(vectorOf(head, 'sum by (instance, job) (node_cpu) / on (instance) node_role', 0))).toEqual({
      [key({ instance: 'a' })]: 40,
      [key({ instance: 'b' })]: 40,
    });
  });

  it('reports duplicate series on the one side', () => {
    expect(() => vectorOf(head, 'one + on (k) dup', 0)).toThrow(
      'found duplicate series for the match group {k="x"} on the right hand-side of the operation: ' +
        '[{__name__="dup", k="x", label="alpha"}, {__name__="dup", k="x", label="beta"}]' +
        ';many-to-many matching not allowed: matching labels must be unique on one side',
    );
    expect(() => vectorOf(head, 'dup + on (k) group_right one', 0)).toThrow('on the left hand-side of the operation');
  });

  it('requires explicit grouping for many-to-one matches', () => {
    expect(() => vectorOf(head, 'node_cpu + on (instance) node_role', 0)).toThrow(
      'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
    );
  });

  it('set operators filter per step', () => {
    const h = headWith([
      { labels: { __name__: 'a', x: '1' }, samples: regular(60e3, [1, 1, 1]) },
      { labels: { __name__: 'a', x: '2' }, samples: regular(60e3, [2, 2, 2]) },
      { labels: { __name__: 'b', x: '1' }, samples: [[60e3, 9], [120e3, STALE]] },
    ]);
    const and = range(h, 'a and b', 0, 120e3, 60e3);
    expect(and.series.map((s) => [s.labels.x, Array.from(s.timestampsMs)])).toEqual([['1', [60e3]]]);
    const unless = range(h, 'a unless on (x) b', 0, 120e3, 60e3);
    expect(unless.series.map((s) => [s.labels.x, Array.from(s.timestampsMs)])).toEqual([
      ['1', [0, 120e3]],
      ['2', [0, 60e3, 120e3]],
    ]);
    const or = range(h, 'b or a', 0, 120e3, 60e3);
    expect(or.series.map((s) => [s.labels.__name__, s.labels.x, Array.from(s.values)])).toEqual([
      ['a', '1', [1, 1]],
      ['a', '2', [2, 2, 2]],
      ['b', '1', [9]],
    ]);
  });
});

describe('scalar and vector/scalar operators', () => {
  it('follows Go float rules', () => {
    expect(scalarOf(head, '1 % 0', 0)).toBeNaN();
    expect(scalarOf(head, '-7 % 3', 0)).toBe(-1);
    expect(scalarOf(head, '1 ^ NaN', 0)).toBe(1);
    expect(scalarOf(head, '2 ^ 3 ^ 2', 0)).toBe(512);
    expect(scalarOf(head, '10 atan2 20', 0)).toBeCloseTo(Math.atan2(10, 20), 15);
    expect(scalarOf(head, '1 < bool 2', 0)).toBe(1);
  });

  it('comparisons keep the vector value whichever side it is on', () => {
    expect(byLabels(vectorOf(head, '20 < node_cpu', 0))).toEqual({
      [key({ __name__: 'node_cpu', instance: 'a', mode: 'user', job: 'node' })]: 30,
      [key({ __name__: 'node_cpu', instance: 'b', mode: 'idle', job: 'node' })]: 40,
    });
    expect(vectorOf(head, 'node_role == bool 1', 0).map((s) => s.labels.__name__)).toEqual([undefined, undefined]);
  });

  it('fails when dropping the name makes two series equal', () => {
    const h = headWith([
      { labels: { __name__: 'm1', a: 'x' }, samples: [[0, 1]] },
      { labels: { __name__: 'm2', a: 'x' }, samples: [[0, 2]] },
    ]);
    expect(() => vectorOf(h, '{a="x"} * 2', 0)).toThrow('vector cannot contain metrics with the same labelset');
    // Under delayed name removal the clash is only detected on the final result.
    expect(() => vectorOf(h, '{a="x"} * 2', 0, { delayedNameRemoval: true })).toThrow('vector cannot contain metrics with the same labelset');
    expect(byLabels(vectorOf(h, 'label_replace({a="x"} * 2, "n", "$1", "__name__", "(.*)")', 0, { delayedNameRemoval: true }))).toEqual({
      [key({ a: 'x', n: 'm1' })]: 2,
      [key({ a: 'x', n: 'm2' })]: 4,
    });
  });
});

describe('vector matching along each pair', () => {
  /** sides makes two vectors over 12 steps with gaps; `instance` is shared, `mode` only on the left. */
  const sides = (random: SeededRandom): { lhs: VectorSeries[]; rhs: VectorSeries[] } => {
    const series = (labels: Record<string, string>): VectorSeries => ({
      labels,
      values: Float64Array.from({ length: 12 }, () => random.int(0, 4)),
      present: Uint8Array.from({ length: 12 }, () => (random.chance(0.8) ? 1 : 0)),
      dropName: false,
    });
    const lhs: VectorSeries[] = [];
    const rhs: VectorSeries[] = [];
    for (let i = 0; i < 6; i++) {
      for (const mode of ['idle', 'user']) lhs.push(series({ __name__: 'a', instance: `i${i}`, mode }));
      if (i !== 2) rhs.push(series({ __name__: 'b', instance: `i${i}`, role: `r${i % 2}` }));
    }
    return { lhs, rhs };
  };

  it('answers as the step-by-step matching does, for every operator and modifier', () => {
    const random = new SeededRandom(77);
    const grid = makeGrid(0, 11 * 60_000, 60_000);
    const queries = [
      'a / on (instance, mode) a',
      'a - ignoring (mode) group_left (role) b',
      'a > on (instance) group_left b',
      'a > bool on (instance) group_left (role) b',
      'b * on (instance) group_right (role) a',
      'b <= on (instance) group_right a',
    ];
    for (let trial = 0; trial < 20; trial++) {
      const { lhs, rhs } = sides(random);
      for (const q of queries) {
        const node = parseAndCheckPromQL(q) as BinaryExpr;
        const sameNames = node.matching.card === 'one-to-one';
        const left = sameNames ? lhs : node.matching.card === 'one-to-many' ? rhs : lhs;
        const right = sameNames ? lhs : node.matching.card === 'one-to-many' ? lhs : rhs;
        // A series without samples whose signature repeats another's sends the matching step by step.
        const twinOf = node.matching.card === 'one-to-many' ? left : right;
        const twin: VectorSeries = { ...twinOf[0], values: new Float64Array(12), present: new Uint8Array(12) };
        const ctx = (): EvalContext => new EvalContext({} as MetricQuerier, {}, grid.startMs, grid.endMs, grid.stepMs);
        const paired = vectorVector(ctx(), node, left, right, grid);
        const stepped = node.matching.card === 'one-to-many' ? vectorVector(ctx(), node, [...left, twin], right, grid) : vectorVector(ctx(), node, left, [...right, twin], grid);
        const points = (out: VectorSeries[]): string[] => out.flatMap((s) => Array.from(s.present).flatMap((p, i) => (p ? [`${key(s.labels)}@${i}=${s.values[i]}`] : []))).sort();
        expect(points(paired), `${q} trial ${trial}`).toEqual(points(stepped));
      }
    }
  });
});

describe('set operations along each series', () => {
  it('keep what `and`, `or` and `unless` keep at each step, series by series and step by step', () => {
    const random = new SeededRandom(91);
    const grid = makeGrid(0, 9 * 60_000, 60_000);
    const vector = (name: string, n: number): VectorSeries[] =>
      Array.from({ length: n }, (_, i) => ({
        labels: { __name__: name, instance: `i${random.int(0, 4)}`, mode: `m${i}` },
        values: Float64Array.from({ length: 10 }, () => random.int(0, 9)),
        present: Uint8Array.from({ length: 10 }, () => (random.chance(0.6) ? 1 : 0)),
        dropName: false,
      }));
    for (let trial = 0; trial < 30; trial++) {
      const lhs = vector('a', 5);
      const rhs = vector('b', 4);
      for (const [q, signature] of [
        ['a and on (instance) b', (l: Record<string, string>) => l.instance],
        ['a unless on (instance) b', (l: Record<string, string>) => l.instance],
        ['a or ignoring (mode) b', (l: Record<string, string>) => l.instance],
        ['a and b', (l: Record<string, string>) => `${l.instance}/${l.mode}`],
      ] as const) {
        const node = parseAndCheckPromQL(q) as BinaryExpr;
        const ctx = (): EvalContext => new EvalContext({} as MetricQuerier, {}, grid.startMs, grid.endMs, grid.stepMs);
        const pointsOf = (out: VectorSeries[]): string[] => out.flatMap((s) => Array.from(s.present).flatMap((p, i) => (p ? [`${key(s.labels)}@${i}=${s.values[i]}`] : []))).sort();
        const points = pointsOf(setOperation(ctx(), node, lhs, rhs, grid));
        // With no room for the presence table, the same answer step by step.
        expect(pointsOf(setOperation(ctx(), node, lhs, rhs, grid, 0)), `${q} trial ${trial}, step by step`).toEqual(points);
        const want: string[] = [];
        for (let step = 0; step < 10; step++) {
          const presentSigs = (side: VectorSeries[]): Set<string> => new Set(side.filter((s) => s.present[step] === 1).map((s) => signature(s.labels)));
          const right = presentSigs(rhs);
          const left = presentSigs(lhs);
          for (const s of lhs) {
            if (s.present[step] === 0) continue;
            if (node.op === 'or' || (node.op === 'and') === right.has(signature(s.labels))) want.push(`${key(s.labels)}@${step}=${s.values[step]}`);
          }
          if (node.op === 'or') for (const s of rhs) if (s.present[step] === 1 && !left.has(signature(s.labels))) want.push(`${key(s.labels)}@${step}=${s.values[step]}`);
        }
        expect(points, `${q} trial ${trial}`).toEqual(want.sort());
      }
    }
  });
});
