/**
 * The LogQL conformance runner itself: script parsing, expectation checks, report format and
 * the CLI command, on small inline scripts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  floatsEqual,
  formatSummary,
  parseLabelSet,
  parseScript,
  parseValues,
  runScript,
  stripComment,
  summarize,
} from '../../engine/conformance/logql/index.js';
import { conformanceLogql } from '../../src/cli/conformance.js';

const SCRIPT = `
# comment line
clear
load
  {app="a", empty=""} "v={{.i}} # not a comment" @ 10s [repeat every 10s for 3]   # trailing comment
  {app="a"} \`{"k":"v"}\` @ 15s [metadata md="m" app="meta"]

eval instant at 30s count_over_time({app="a"} |= "v=" [1m])
  {app="a"} 3
eval instant at 30s sum_over_time({app="a"} | logfmt | unwrap v [1m])   # overlapping
  {app="a"} 3
eval range from 10s to 30s step 10s count_over_time({app="a"} |= "v=" [15s])
  {app="a"} 1 2 2
eval instant at 30s count_over_time({app="a"} |= "{" [1m])
  {app="a", app_extracted="meta", md="m"} 1
eval instant at 30s count_over_time({app="a"} |= "nothing" [1m])
  expect empty
eval instant at 30s count_over_time({app="a"} | json [1m])
  expect fail msg: JSONParserErr
eval instant at 30s count_over_time({app="a"} | json [1m])
  expect fail regex: pipeline error: '[A-Z]+ParserErr'
eval instant at 30s sort_desc(count_over_time({app="a"} [1m]))
  expect ordered
  {app="a"} 3
  {app="a", app_extracted="meta", md="m"} 1
eval instant at 30s 1 + 1
  2
eval instant at 30s count_over_time({app="a"} [1m])
  {app="a"} 99
  {app="a", app_extracted="meta", md="m"} 1
`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('script reading', () => {
  it('strips comments outside quotes only', () => {
    expect(stripComment('  {a="#x"} `#y` @ 1s # z')).toBe('  {a="#x"} `#y` @ 1s');
  });

  it('parses loads with repeats, metadata and index substitution', () => {
    const commands = parseScript(SCRIPT);
    expect(commands[0]).toEqual({ kind: 'clear', line: 3 });
    const load = commands[1];
    expect(load.kind).toBe('load');
    if (load.kind !== 'load') return;
    expect(load.entries[0].stream).toEqual({ app: 'a' });
    expect(load.entries[0].lines).toEqual([
      { offsetNs: 10_000_000_000n, line: 'v=0 # not a comment' },
      { offsetNs: 20_000_000_000n, line: 'v=1 # not a comment' },
      { offsetNs: 30_000_000_000n, line: 'v=2 # not a comment' },
    ]);
    expect(load.entries[1].metadata).toEqual([
      ['md', 'm'],
      ['app', 'meta'],
    ]);
    const range = commands.find((c) => c.kind === 'eval' && !c.instant);
    expect(range).toMatchObject({ query: 'count_over_time({app="a"} |= "v=" [15s])', startNs: 10_000_000_000n, stepNs: 10_000_000_000n });
  });

  it('expands value shorthands and reads label sets', () => {
    expect(parseValues(['1', '_', '2+3x2', '4-1x2', '7x1', 'NaN', '-Inf'])).toEqual([1, undefined, 2, 5, 8, 4, 3, 2, 7, 7, NaN, -Infinity]);
    expect(parseLabelSet('{a="b", c="d\\"e", empty=""}')).toEqual({ a: 'b', c: 'd"e', empty: '' });
  });

  it('compares floats with the harness tolerance', () => {
    expect(floatsEqual(1, 1 + 1e-12)).toBe(true);
    expect(floatsEqual(1e12, 1e12 + 100)).toBe(true);
    expect(floatsEqual(1, 1.001)).toBe(false);
    expect(floatsEqual(NaN, NaN)).toBe(true);
    expect(floatsEqual(Infinity, 1e308)).toBe(false);
  });
});

describe('running scripts', () => {
  it('reports every eval as passed or failed with a reason', () => {
    const outcomes = runScript('inline', SCRIPT);
    expect(outcomes.map((o) => o.outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'failed']);
    expect(outcomes[9].detail).toBe('series {app="a"} value mismatch: want 99, got 3');
  });

  it('summarises per file and ends with the totals line', () => {
    const text = formatSummary(summarize(runScript('inline', SCRIPT)));
    expect(text.split('\n')).toEqual(['file    passed  failed  unsupported', 'inline       9       1            0', 'total        9       1            0', '9 passed, 1 failed']);
  });

  it('runs from the CLI over a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-logqltest-'));
    try {
      writeFileSync(join(dir, 'one.logqltest'), SCRIPT);
      writeFileSync(join(dir, 'ignored.txt'), 'not a script');
      let out = '';
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        out += String(chunk);
        return true;
      });
      expect(await conformanceLogql.run({ verbose: true }, [dir])).toBe(0);
      expect(out).toContain('FAILED one:');
      expect(out.trimEnd().split('\n').pop()).toBe('9 passed, 1 failed');
      out = '';
      expect(await conformanceLogql.run({ json: true }, [dir])).toBe(0);
      expect(JSON.parse(out).total).toEqual({ passed: 9, failed: 1, unsupported: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
