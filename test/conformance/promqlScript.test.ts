import { describe, expect, it } from 'vitest';
import { parseScript, parseSeriesDescription, runScript, summarize, formatSummary, type EvalCommand } from '../../engine/conformance/promql/index.js';

describe('series descriptions', () => {
  const values = (text: string) => parseSeriesDescription(`m ${text}`).values.map((v) => (v.kind === 'float' ? v.value : v.kind));

  it('expands the value notation', () => {
    expect(values('1 _ stale')).toEqual([1, 'omitted', 'stale']);
    expect(values('_x3 2x2')).toEqual(['omitted', 'omitted', 'omitted', 2, 2, 2]);
    expect(values('1+2x3 10-5x2')).toEqual([1, 3, 5, 7, 10, 5, 0]);
    expect(values('-1+1x2 Inf -Inf')).toEqual([-1, 0, 1, Infinity, -Infinity]);
    expect(values('NaN 1e3 .5')).toEqual([NaN, 1000, 0.5]);
    // Hexadecimal is not a series value: 0x3 is "0, three more times".
    expect(values('0x3')).toEqual([0, 0, 0, 0]);
    expect(values('{{schema:0 sum:1 count:1}}x2 5')).toEqual(['histogram', 'histogram', 'histogram', 5]);
  });

  it('reads names, label sets and quoted names', () => {
    expect(parseSeriesDescription('up{job="a", instance=\'b\'} 1').labels).toEqual({ __name__: 'up', instance: 'b', job: 'a' });
    expect(parseSeriesDescription('{"my.metric", "odd.label"="x"} 1').labels).toEqual({ __name__: 'my.metric', 'odd.label': 'x' });
    expect(parseSeriesDescription('{} 1').labels).toEqual({});
  });
});

describe('script parsing', () => {
  it('reads loads, evals and their expectations', () => {
    const commands = parseScript(`
# comment
load 5m
  up{job="a"} 1 2

eval instant at 10m up
  expect no_warn
  expect ordered
  up{job="a"} 2

eval range from 0 to 10m step 5m up
  expect fail msg: something broke
  expect warn regex: foo.*

eval instant at 1m 1 + 1
  2

clear

eval instant at 1m "x"
  expect string "x"
`);
    expect(commands.map((c) => c.kind)).toEqual(['load', 'eval', 'eval', 'eval', 'clear', 'eval']);
    const [, first, second, third, , fourth] = commands as EvalCommand[];
    expect(first).toMatchObject({ instant: true, evalMs: 600e3, ordered: true, noWarn: true, expr: 'up' });
    expect(first.expected).toEqual([{ labels: { __name__: 'up', job: 'a' }, values: [{ kind: 'float', value: 2 }], position: 1 }]);
    expect(second).toMatchObject({ instant: false, startMs: 0, endMs: 600e3, stepMs: 300e3 });
    expect(second.fail).toEqual({ kind: 'message', text: 'something broke' });
    expect(second.expectedWarnings).toEqual([{ kind: 'regex', pattern: 'foo.*' }]);
    expect(third.expectScalar).toBe(2);
    expect(fourth.expectString).toBe('x');
  });
});

describe('running scripts', () => {
  it('passes correct expectations and fails wrong ones', () => {
    const outcomes = runScript(
      'sample',
      `
load 1m
  x{a="1"} 0+1x10
  x{a="2"} 5x10

eval instant at 5m x
  x{a="1"} 5
  x{a="2"} 5

eval instant at 5m x
  x{a="1"} 6
  x{a="2"} 5

eval range from 0 to 2m step 1m sum(x)
  {} 5 6 7

eval instant at 5m x{a="1"} + on() group_left x
  expect fail
`,
    );
    expect(outcomes.map((o) => o.outcome)).toEqual(['passed', 'failed', 'passed', 'passed']);
    expect(outcomes[1].detail).toContain('expected 6');
  });

  it('classifies native histogram and experimental evals', () => {
    const outcomes = runScript(
      'sample',
      `
load 1m
  h {{schema:0 sum:1 count:1}}x3
  f 1 2 3

eval instant at 1m h
  h {{schema:0 sum:1 count:1}}

eval instant at 1m h
  h {{schema:0 sum:2 count:1}}

eval instant at 1m f
  f 2

eval instant at 1m label_replace(-f, "n", "$1", "__name__", "(.*)")
  {n="f"} -2
`,
    );
    expect(outcomes.map((o) => [o.category, o.outcome])).toEqual([
      ['native_histogram', 'passed'],
      ['native_histogram', 'failed'],
      ['float', 'passed'],
      // Reading the name after it was dropped works only with delayed name removal.
      ['experimental', 'passed'],
    ]);
    const summary = summarize(outcomes);
    expect(summary.categories.float).toEqual({ passed: 1, failed: 0, unsupported: 0 });
    expect(outcomes[1].detail).toContain('expected {{count:1 sum:2}} but got {{count:1 sum:1');
    expect(summary.categories.native_histogram).toEqual({ passed: 1, failed: 1, unsupported: 0 });
    expect(formatSummary(summary).split('\n').at(-1)).toBe('3 passed, 1 failed');
  });

  it('checks range mode and @ variants of instant evals', () => {
    // time() differs in range mode only at other steps; the middle step must still agree.
    const outcomes = runScript('sample', `
load 1m
  x 1+1x10

eval instant at 3m x - x offset 1m
  {} 1

eval instant at 3m timestamp(x)
  {} 180
`);
    expect(outcomes.map((o) => o.outcome)).toEqual(['passed', 'passed']);
  });
});
