import { describe, expect, it } from 'vitest';
import { parseLogQL, printLogQL } from '../../../engine/logql/index.js';
import { sharedAvailable } from '../../support/sharedBundle.js';
import { conformanceCases } from './conformanceCases.js';
import { withoutPositions } from './helpers.js';

/** [input, canonical output] */
const CANONICAL: Array<[string, string]> = [
  ['{app = "foo",env=~"p.*"}', '{app="foo", env=~"p.*"}'],
  ['{a="b"}|="x"   or "y"!=ip("10.0.0.0/8")', '{a="b"} |= "x" or "y" != ip("10.0.0.0/8")'],
  ['{a="b"} |~`\\d+` |> "<_> GET"', '{a="b"} |~ `\\d+` |> "<_> GET"'],
  ['{a="b"} | json | logfmt --keep-empty --strict a,b="c"', '{a="b"} | json | logfmt --strict --keep-empty a, b="c"'],
  ['{a="b"} | json x="x", y="a.b[0]"', '{a="b"} | json x, y="a.b[0]"'],
  ['{a="b"} | regexp "(?P<x>\\\\w+)" | pattern `<a> "<b>"`', '{a="b"} | regexp `(?P<x>\\w+)` | pattern `<a> "<b>"`'],
  ['{a="b"} | unpack | decolorize', '{a="b"} | unpack | decolorize'],
  ['{a="b"} | x="1", y>=2 z<1s or w=~"v" , s!=20MB', '{a="b"} | x="1" and y >= 2 and z < 1s or w=~"v" and s != 20MB'],
  ['{a="b"} | (x="1" or y="2") z="3"', '{a="b"} | (x="1" or y="2") and z="3"'],
  ['{a="b"} | x="1" and (y="2" and z="3")', '{a="b"} | x="1" and (y="2" and z="3")'],
  ['{a="b"} | size > 1536B and size < 1048576B and t > 1500us', '{a="b"} | size > 1536B and size < 1MiB and t > 1500us'],
  ['{a="b"} | line_format "{{.a}}" | label_format x="{{.b}}",y=z', '{a="b"} | line_format "{{.a}}" | label_format x="{{.b}}", y=z'],
  ['{a="b"} | drop a,b="c" | keep d', '{a="b"} | drop a, b="c" | keep d'],
  ['{a="b"} | addr=ip("1.2.3.4")', '{a="b"} | addr = ip("1.2.3.4")'],
  ['rate(({a="b"} |= "x")[1m])', 'rate({a="b"} |= "x" [1m])'],
  ['count_over_time({a="b"}[1m] offset 1h | json)', 'count_over_time({a="b"} | json [1m] offset 1h)'],
  ['sum_over_time({a="b"} | unwrap bytes(x) | x > 1 [90s])', 'sum_over_time({a="b"} | unwrap bytes(x) | x > 1 [1m30s])'],
  ['quantile_over_time(.5,{a="b"}|unwrap x[1m])by(p)', 'quantile_over_time(0.5, {a="b"} | unwrap x [1m]) by (p)'],
  ['sum(rate({a="b"}[1m])) by (x,y)', 'sum by (x, y) (rate({a="b"}[1m]))'],
  ['topk(5,rate({a="b"}[1m]))without(x)', 'topk without (x) (5, rate({a="b"}[1m]))'],
  ['(1 + 2) * 3 - (4 - 5) - 6', '(1 + 2) * 3 - (4 - 5) - 6'],
  ['(2 ^ 3) ^ 2 + 2 ^ (3 ^ 2)', '(2 ^ 3) ^ 2 + 2 ^ 3 ^ 2'],
  ['vector(1)>bool on(a)group_left(b)vector(2)', 'vector(1) > bool on (a) group_left (b) vector(2)'],
  ['vector(1) * on(a) group_left() (vector(2) + vector(3))', 'vector(1) * on (a) group_left () (vector(2) + vector(3))'],
  ['vector(1) * on(a) group_left() vector(2)', 'vector(1) * on (a) group_left vector(2)'],
  ['vector(1) or vector(2) and vector(3)', 'vector(1) or vector(2) and vector(3)'],
  ['(vector(1) or vector(2)) and vector(3)', '(vector(1) or vector(2)) and vector(3)'],
  ['label_replace(vector(1),"a","$1","b","(.*)")', 'label_replace(vector(1), "a", "$1", "b", "(.*)")'],
  ['-1 - -2', '-1 - -2'],
  ['{a="b"} + 1', '({a="b"}) + 1'],
];

/** Queries that exercise forms the conformance corpus does not. */
const EXTRA_ROUND_TRIP = [
  '{a="b"} |= "tab\\there" | line_format `{{ printf "%q" .x }}`',
  '{a="b"} | json | label_format msg=`{{ if eq .level "error" }}E{{ else if .warn }}W{{ else }}I{{ end }}`',
  '{a="b"} | logfmt | x > -5 and y = +3 or z != 1e-7',
  'count_over_time({a="b"} | took > -1s [1m] offset -5m)',
  'sum by (a) (count_over_time({a="b"}[1m])) / ignoring (x) group_right (y) sum(vector(1))',
  'avg_over_time({a="b"} | json | unwrap duration_seconds(took) | took > 1s | __error__="" [5m]) without (pod)',
  'sort_desc(sum(rate({a="b"}[1m]))) unless bottomk(2, rate({a="b"}[1m]))',
  'absent_over_time({a="b"}[1500us])',
  '{a="b"} |= "a\\u00e9\\U0001F600"',
  '{a="b"} |~ "line\\nbreak" |= "back`tick\\\\"',
];

function roundTrips(text: string): void {
  const first = parseLogQL(text);
  const printed = printLogQL(first);
  const second = parseLogQL(printed);
  expect(withoutPositions(second), `${text}\n  printed as\n${printed}`).toEqual(withoutPositions(first));
  expect(printLogQL(second)).toBe(printed);
}

describe('printLogQL', () => {
  it.each(CANONICAL)('prints %s canonically', (input, expected) => {
    expect(printLogQL(parseLogQL(input))).toBe(expected);
  });

  it.each(EXTRA_ROUND_TRIP)('round-trips %s', (text) => {
    roundTrips(text);
  });

  it.skipIf(!sharedAvailable('conformance/logql', 'printLogQL round trip of the conformance corpus'))('round-trips every query of the conformance corpus', () => {
    const cases = conformanceCases();
    let count = 0;
    for (const { query } of cases) {
      let parsed = true;
      try {
        parseLogQL(query);
      } catch {
        parsed = false;
      }
      if (!parsed) continue;
      roundTrips(query);
      count++;
    }
    expect(count).toBeGreaterThan(700);
  });
});
