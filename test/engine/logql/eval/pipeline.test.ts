import { describe, expect, it } from 'vitest';
import type { LogSelectorExpr } from '../../../../engine/logql/index.js';
import {
  CompiledPipeline,
  LabelCache,
  UNREAD_TIMESTAMP,
  compileStage,
  reorderStages,
  withoutUnusedLineFormat,
  type Stage,
} from '../../../../engine/logql/eval/index.js';
import { parseChecked, runPipeline } from './helpers.js';

function stagesOf(query: string): LogSelectorExpr['pipeline'] {
  return (parseChecked(`{app="x"} ${query}`) as LogSelectorExpr).pipeline;
}

/** compiled builds each stage of `query` and remembers which parsed kind it came from. */
function compiled(query: string): { stages: Stage[]; kinds: (stages: readonly Stage[]) => string[] } {
  const kindOf = new Map<Stage, string>();
  const stages = stagesOf(query).map((parsed) => {
    const stage = compileStage(parsed, undefined);
    kindOf.set(stage, parsed.kind === 'LineFilter' ? `LineFilter${parsed.op}` : parsed.kind);
    return stage;
  });
  return { stages, kinds: (some) => some.map((stage) => kindOf.get(stage)!) };
}

function reordered(query: string): string[] {
  const { stages, kinds } = compiled(query);
  return kinds(reorderStages(stages));
}

function withoutUnused(query: string): string[] {
  const { stages, kinds } = compiled(query);
  return kinds(withoutUnusedLineFormat(stages));
}

describe('pipeline assembly', () => {
  it('moves line filters ahead of stages that keep the line, not past rewrites', () => {
    expect(reordered('| json | level="error" |= "a" | line_format "{{.x}}" | logfmt != "b" | decolorize |~ "c"')).toEqual([
      'LineFilter|=',
      'JsonParser',
      'LabelFilterStage',
      'LineFormat',
      'LineFilter!=',
      'LogfmtParser',
      'Decolorize',
      'LineFilter|~',
    ]);
    expect(reordered('| unpack |= "a"')).toEqual(['UnpackParser', 'LineFilter|=']);
  });

  it('drops line_format when no parser or line filter reads its output', () => {
    expect(withoutUnused('| line_format "{{.a}}" | label_format b="{{__line__}}"')).toEqual(['LabelFormat']);
    expect(withoutUnused('| line_format "{{.a}}" | logfmt')).toEqual(['LineFormat', 'LogfmtParser']);
    expect(withoutUnused('| line_format "{{.a}}" |= "x"')).toEqual(['LineFormat', 'LineFilter|=']);
  });

  it('exposes a line-only test when every stage is a line filter', () => {
    const lineOnly = new CompiledPipeline(stagesOf('|= "a" != "b" |~ "c+"')).lineOnly;
    expect(lineOnly).toBeDefined();
    expect(lineOnly!('a c')).toBe(true);
    expect(lineOnly!('a b c')).toBe(false);
    expect(new CompiledPipeline(stagesOf('|= "a" | logfmt')).lineOnly).toBeUndefined();
  });

  it('skips parsing when told no label is needed', () => {
    const pipeline = new CompiledPipeline(stagesOf('| json | logfmt | regexp `(?P<x>.)` | pattern `<y> <_>` | unpack'), { noLabels: true });
    const sp = pipeline.forStream({ app: 'x' }, new LabelCache());
    expect(sp.process(UNREAD_TIMESTAMP, 'not json at all')).toBe('not json at all');
    expect(sp.labels.toObject()).toEqual({ app: 'x' });
  });

  it('extracts only the labels read after it when told which, and stops reading a line once it has them', () => {
    for (const parser of ['json', 'logfmt']) {
      const pipeline = new CompiledPipeline(stagesOf(`| ${parser} | status >= 500`), { labelsRead: ['route', 'env_extracted'] });
      const sp = pipeline.forStream({ app: 'x', env: 'prod' }, new LabelCache());
      const line =
        parser === 'json'
          ? '{"level":"error","route":"/a","nested":{"route":"no"},"env":"dev","status":503,"trace_id":"t1"}'
          : 'level=error route=/a env=dev status=503 trace_id=t1';
      expect(sp.process(UNREAD_TIMESTAMP, line)).toBe(line);
      expect(sp.labels.toObject()).toEqual({ app: 'x', env: 'prod', env_extracted: 'dev', route: '/a', status: '503' });
      // The filter reads status, so the hint keeps it: a line under 500 is still dropped.
      expect(sp.process(UNREAD_TIMESTAMP, parser === 'json' ? '{"route":"/a","env":"dev","status":200}' : 'route=/a env=dev status=200')).toBeNull();
    }
    // Once route, status and env_extracted are set, a malformed rest is not read (as Loki's hint does)...
    const hinted = new CompiledPipeline(stagesOf('| json'), { labelsRead: ['route'] }).forStream({ app: 'x' }, new LabelCache());
    hinted.process(UNREAD_TIMESTAMP, '{"route":"/a", "broken');
    expect(hinted.labels.toObject()).toEqual({ app: 'x', route: '/a' });
    // ...while without the hint the same line is a parser error.
    const full = new CompiledPipeline(stagesOf('| json')).forStream({ app: 'x' }, new LabelCache());
    full.process(UNREAD_TIMESTAMP, '{"route":"/a", "broken');
    expect(full.labels.toObject()).toMatchObject({ __error__: 'JSONParserErr' });
    // Keys that need sanitising, escaped keys and nested ones still reach a wanted name.
    const odd = new CompiledPipeline(stagesOf('| json'), { labelsRead: ['a_b', 'c_d', 'e'] }).forStream({}, new LabelCache());
    odd.process(UNREAD_TIMESTAMP, '{"a.b":1,"c":{"d":2},"\\u0065":3,"z":4}');
    expect(odd.labels.toObject()).toEqual({ a_b: '1', c_d: '2', e: '3' });
  });

  it('reuses a stream pipeline across lines without leaking labels', () => {
    const pipeline = new CompiledPipeline(stagesOf('| logfmt'));
    const sp = pipeline.forStream({ app: 'x' }, new LabelCache());
    sp.process(UNREAD_TIMESTAMP, 'a=1 b=2');
    expect(sp.labels.toObject()).toEqual({ app: 'x', a: '1', b: '2' });
    sp.process(UNREAD_TIMESTAMP, 'c=3');
    expect(sp.labels.toObject()).toEqual({ app: 'x', c: '3' });
  });

  it('runs stages in order on each line', () => {
    expect(runPipeline('| logfmt | label_format lvl="{{.level | upper}}" | drop level | line_format "{{.lvl}}: {{.msg}}"', 'level=warn msg=slow')).toEqual({
      line: 'WARN: slow',
      labels: { app: 'test', lvl: 'WARN', msg: 'slow' },
    });
  });
});
