import { describe, expect, it } from 'vitest';
import { parseLogQL } from '../../../engine/logql/index.js';
import type { LabelFilterExpr, LogSelectorExpr, PipelineStage } from '../../../engine/logql/index.js';
import { withoutPositions } from './helpers.js';

function logQuery(text: string): LogSelectorExpr {
  const expr = parseLogQL(text);
  expect(expr.kind).toBe('LogSelector');
  return withoutPositions(expr as LogSelectorExpr);
}

function stages(text: string): PipelineStage[] {
  return logQuery(text).pipeline;
}

function labelFilter(text: string): LabelFilterExpr {
  const [stage] = stages(`{app="a"} | ${text}`);
  expect(stage.kind).toBe('LabelFilterStage');
  return (stage as Extract<PipelineStage, { kind: 'LabelFilterStage' }>).filter;
}

describe('stream selectors', () => {
  it('parses every matcher operator', () => {
    expect(logQuery('{a="1", b!="2", c=~"3.*", d!~"4|5"}')).toEqual({
      kind: 'LogSelector',
      matchers: [
        { kind: 'LabelMatcher', name: 'a', op: '=', value: '1' },
        { kind: 'LabelMatcher', name: 'b', op: '!=', value: '2' },
        { kind: 'LabelMatcher', name: 'c', op: '=~', value: '3.*' },
        { kind: 'LabelMatcher', name: 'd', op: '!~', value: '4|5' },
      ],
      pipeline: [],
    });
  });

  it('accepts an empty selector syntactically (the checker rejects it)', () => {
    expect(logQuery('{}').matchers).toEqual([]);
  });

  it('drops parentheses around a log query and keeps their span', () => {
    const expr = parseLogQL('(({a="b"} |= "x"))');
    expect(expr.pos).toEqual({ start: 0, end: 18 });
    expect(withoutPositions(expr)).toEqual(logQuery('{a="b"} |= "x"'));
  });

  it('ignores comments anywhere between tokens', () => {
    expect(logQuery('{app="foo"}\n  # |= "bar"\n  | json # trailing')).toEqual(logQuery('{app="foo"} | json'));
  });

  it('gives the selector a position covering its pipeline', () => {
    const text = '{a="b"} |= "x" | json';
    expect(parseLogQL(text).pos).toEqual({ start: 0, end: text.length });
  });
});

describe('line filters', () => {
  it('parses each operator into its own stage', () => {
    const ops = ['|=', '!=', '|~', '!~', '|>', '!>'] as const;
    const text = `{a="b"} ${ops.map((op) => `${op} "x<_>"`).join(' ')}`;
    expect(stages(text).map((s) => (s.kind === 'LineFilter' ? s.op : s.kind))).toEqual([...ops]);
  });

  it('collects or-chains of strings and ip() on one stage', () => {
    expect(stages('{a="b"} |= "error" or "warn" or ip("10.0.0.0/8")')).toEqual([
      {
        kind: 'LineFilter',
        op: '|=',
        values: [
          { kind: 'LineFilterLiteral', value: 'error' },
          { kind: 'LineFilterLiteral', value: 'warn' },
          {
            kind: 'LineFilterIp',
            pattern: '10.0.0.0/8',
            ip: { kind: 'prefix', address: { bytes: new Uint8Array([10, 0, 0, 0]) }, bits: 8 },
          },
        ],
      },
    ]);
  });

  it('keeps the operator of a negative or-chain for every value', () => {
    const [stage] = stages('{a="b"} != "a" or "b"');
    expect(stage).toMatchObject({ kind: 'LineFilter', op: '!=', values: [{ value: 'a' }, { value: 'b' }] });
  });

  it('parses the pattern of pattern filters', () => {
    const [stage] = stages('{a="b"} |> "GET <_> 200"');
    expect(stage).toMatchObject({
      values: [
        {
          value: 'GET <_> 200',
          pattern: {
            captures: [],
            parts: [
              { kind: 'literal', text: 'GET ' },
              { kind: 'capture', name: '_' },
              { kind: 'literal', text: ' 200' },
            ],
          },
        },
      ],
    });
  });

  it('accepts an empty filter string', () => {
    expect(stages('{a="b"} |= ""')).toEqual([{ kind: 'LineFilter', op: '|=', values: [{ kind: 'LineFilterLiteral', value: '' }] }]);
  });
});

describe('parser stages', () => {
  it('parses json with and without extraction parameters', () => {
    expect(stages('{a="b"} | json')).toEqual([{ kind: 'JsonParser', extractions: [] }]);
    expect(stages('{a="b"} | json who="user.id", tag="tags[0]", k=`["a b"]`, plain')).toEqual([
      {
        kind: 'JsonParser',
        extractions: [
          { kind: 'JsonExtraction', name: 'who', expression: 'user.id', path: ['user', 'id'] },
          { kind: 'JsonExtraction', name: 'tag', expression: 'tags[0]', path: ['tags', 0] },
          { kind: 'JsonExtraction', name: 'k', expression: '["a b"]', path: ['a b'] },
          { kind: 'JsonExtraction', name: 'plain', expression: 'plain', path: ['plain'] },
        ],
      },
    ]);
  });

  it('parses logfmt flags and extraction parameters', () => {
    expect(stages('{a="b"} | logfmt')).toEqual([{ kind: 'LogfmtParser', strict: false, keepEmpty: false, extractions: [] }]);
    expect(stages('{a="b"} | logfmt --strict --keep-empty level, code="status"')).toEqual([
      {
        kind: 'LogfmtParser',
        strict: true,
        keepEmpty: true,
        extractions: [
          { kind: 'LogfmtExtraction', name: 'level', key: 'level' },
          { kind: 'LogfmtExtraction', name: 'code', key: 'status' },
        ],
      },
    ]);
  });

  it('lists the named captures of a regexp stage', () => {
    expect(stages('{a="b"} | regexp `(?P<method>\\w+) (?<path>\\S+) (\\d+)`')).toEqual([
      { kind: 'RegexpParser', regex: '(?P<method>\\w+) (?<path>\\S+) (\\d+)', captures: ['method', 'path'] },
    ]);
  });

  it('parses the pattern of a pattern stage', () => {
    const [stage] = stages('{a="b"} | pattern "<ip> - <_> [<ts>]"');
    expect(stage).toMatchObject({ kind: 'PatternParser', pattern: '<ip> - <_> [<ts>]', parsed: { captures: ['ip', 'ts'] } });
  });

  it('parses unpack and decolorize', () => {
    expect(stages('{a="b"} | unpack | decolorize')).toEqual([{ kind: 'UnpackParser' }, { kind: 'Decolorize' }]);
  });
});

describe('label filters', () => {
  it('parses string comparisons with all four operators', () => {
    for (const op of ['=', '!=', '=~', '!~'] as const) {
      expect(labelFilter(`level${op}"err.*"`)).toEqual({ kind: 'StringLabelFilter', name: 'level', op, value: 'err.*' });
    }
  });

  it('parses numeric comparisons, folding = into ==', () => {
    const cases: Array<[string, string, number]> = [
      ['status == 200', '==', 200],
      ['status = 200', '==', 200],
      ['status != 1.5', '!=', 1.5],
      ['status > 1e3', '>', 1000],
      ['status >= -5', '>=', -5],
      ['status < +5', '<', 5],
      ['status <= 0', '<=', 0],
    ];
    for (const [text, op, value] of cases) {
      expect(labelFilter(text), text).toEqual({ kind: 'NumericLabelFilter', name: 'status', op, value });
    }
  });

  it('parses duration comparisons in milliseconds', () => {
    expect(labelFilter('took > 1.5s')).toEqual({ kind: 'DurationLabelFilter', name: 'took', op: '>', durationMs: 1500 });
    expect(labelFilter('took = 1h')).toEqual({ kind: 'DurationLabelFilter', name: 'took', op: '==', durationMs: 3_600_000 });
    expect(labelFilter('took >= -1s')).toEqual({ kind: 'DurationLabelFilter', name: 'took', op: '>=', durationMs: -1000 });
  });

  it('parses byte size comparisons', () => {
    expect(labelFilter('size > 20MB')).toEqual({ kind: 'BytesLabelFilter', name: 'size', op: '>', bytes: 20_000_000 });
    expect(labelFilter('size <= 1KiB')).toEqual({ kind: 'BytesLabelFilter', name: 'size', op: '<=', bytes: 1024 });
  });

  it('parses ip() comparisons with = and !=', () => {
    expect(labelFilter('addr = ip("192.168.1.1-192.168.1.9")')).toMatchObject({
      kind: 'IpLabelFilter',
      name: 'addr',
      op: '=',
      ip: { kind: 'range' },
    });
    expect(labelFilter('addr != ip("::1")')).toMatchObject({ kind: 'IpLabelFilter', op: '!=', ip: { kind: 'address' } });
  });

  it('binds and tighter than or', () => {
    expect(labelFilter('x="1" or y="1" and z="1"')).toMatchObject({
      op: 'or',
      left: { name: 'x' },
      right: { op: 'and', left: { name: 'y' }, right: { name: 'z' } },
    });
  });

  it('treats a comma and juxtaposition as and', () => {
    const expected = withoutPositions(labelFilter('x="1" or y="1" and z="1"'));
    expect(labelFilter('x="1" or y="1", z="1"')).toEqual(expected);
    expect(labelFilter('x="1" or y="1" z="1"')).toEqual(expected);
  });

  it('groups with parentheses', () => {
    expect(labelFilter('(x="1" or y="1") and z="1"')).toMatchObject({
      op: 'and',
      left: { op: 'or', left: { name: 'x' }, right: { name: 'y' } },
      right: { name: 'z' },
    });
  });

  it('associates left within one operator', () => {
    expect(labelFilter('a="1" or b="1" or c="1"')).toMatchObject({ op: 'or', left: { op: 'or', left: { name: 'a' } }, right: { name: 'c' } });
  });

  it('allows names that are keywords only in other positions', () => {
    expect(labelFilter('duration > 1m and bytes > 20MB')).toMatchObject({
      left: { kind: 'DurationLabelFilter', name: 'duration' },
      right: { kind: 'BytesLabelFilter', name: 'bytes' },
    });
    expect(labelFilter('ip="1.2.3.4"')).toEqual({ kind: 'StringLabelFilter', name: 'ip', op: '=', value: '1.2.3.4' });
    expect(labelFilter('rate > 5')).toMatchObject({ kind: 'NumericLabelFilter', name: 'rate' });
  });

  it('starts a new stage at a pipe', () => {
    expect(stages('{a="b"} | x="1" or y="1" | z="1"').map((s) => s.kind)).toEqual(['LabelFilterStage', 'LabelFilterStage']);
  });
});

describe('formatting and label stages', () => {
  it('parses line_format with its template', () => {
    const [stage] = stages('{a="b"} | line_format "{{.level | ToUpper}}: {{.msg}}"');
    expect(stage).toMatchObject({ kind: 'LineFormat', template: '{{.level | ToUpper}}: {{.msg}}', parsed: { labels: ['level', 'msg'] } });
  });

  it('parses label_format renames and templates', () => {
    const [stage] = stages('{a="b"} | label_format verb=method, route="{{.method}}-ok"');
    expect(stage).toMatchObject({
      kind: 'LabelFormat',
      operations: [
        { kind: 'LabelRename', dst: 'verb', src: 'method' },
        { kind: 'LabelTemplate', dst: 'route', template: '{{.method}}-ok', parsed: { labels: ['method'] } },
      ],
    });
  });

  it('parses drop and keep with names and matchers', () => {
    expect(stages('{a="b"} | drop code, zone="eu", x=~"y.*" | keep a')).toEqual([
      {
        kind: 'DropLabels',
        labels: [
          { kind: 'LabelName', name: 'code' },
          { kind: 'LabelMatcher', name: 'zone', op: '=', value: 'eu' },
          { kind: 'LabelMatcher', name: 'x', op: '=~', value: 'y.*' },
        ],
      },
      { kind: 'KeepLabels', labels: [{ kind: 'LabelName', name: 'a' }] },
    ]);
  });

  it('records stage positions from the pipe to the last token', () => {
    const text = '{a="b"} | json a="x" |= "y"';
    const selector = parseLogQL(text) as LogSelectorExpr;
    expect(selector.pipeline.map((s) => text.slice(s.pos.start, s.pos.end))).toEqual(['| json a="x"', '|= "y"']);
  });
});
