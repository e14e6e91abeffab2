import { describe, expect, expectTypeOf, it } from 'vitest';
import type { LogSelectorExpr, PipelineStage } from '../../../../engine/logql/index.js';
import { CompiledPipeline, LabelCache, LabelsBuilder, UNREAD_TIMESTAMP, compileStage, type Stage } from '../../../../engine/logql/eval/index.js';
import { ASCII_DROPPED, ASCII_KEPT, ASCII_NEEDS_TEXT } from '../../../../engine/logql/eval/pipeline/pipeline.js';
import { parseChecked } from './helpers.js';

/** StageExample is one way of writing a stage and what its Stage must declare. */
interface StageExample {
  stages: string;
  requiredLabelNames: string[];
  readsTimestamp: boolean;
  rewritesLine: boolean;
  isParser: boolean;
  readsLine: boolean;
}

/**
 * Examples of every kind in the AST's PipelineStage union, each Stage class at least once. The
 * mapped type makes a kind added to the union without an example here a type error.
 */
const EXAMPLES: { readonly [K in PipelineStage['kind']]: readonly StageExample[] } = {
  LineFilter: [
    { stages: '|= "x"', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: false, readsLine: true },
    { stages: '!~ "a|b" or "c"', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: false, readsLine: true },
  ],
  JsonParser: [
    { stages: '| json', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true },
    { stages: '| json code="response.code"', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true },
  ],
  LogfmtParser: [
    { stages: '| logfmt --strict', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true },
    { stages: '| logfmt level, status', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true },
  ],
  RegexpParser: [{ stages: '| regexp `(?P<verb>[A-Z]+)`', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true }],
  PatternParser: [{ stages: '| pattern `<ip> - <_> <verb>`', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: true, readsLine: true }],
  UnpackParser: [{ stages: '| unpack', requiredLabelNames: [], readsTimestamp: false, rewritesLine: true, isParser: true, readsLine: true }],
  LabelFilterStage: [
    { stages: '| status >= 500 or (level="error", took > 1s)', requiredLabelNames: ['level', 'status', 'took'], readsTimestamp: false, rewritesLine: false, isParser: false, readsLine: false },
  ],
  LineFormat: [
    { stages: '| line_format "{{.method}} {{.path | lower}} {{__timestamp__}}"', requiredLabelNames: ['method', 'path'], readsTimestamp: true, rewritesLine: true, isParser: false, readsLine: true },
  ],
  LabelFormat: [
    { stages: '| label_format dst=src, upper="{{ .level | ToUpper }}"', requiredLabelNames: ['level', 'src'], readsTimestamp: true, rewritesLine: false, isParser: false, readsLine: true },
  ],
  DropLabels: [{ stages: '| drop a, b="v"', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: false, readsLine: false }],
  KeepLabels: [{ stages: '| keep a, b="v"', requiredLabelNames: [], readsTimestamp: false, rewritesLine: false, isParser: false, readsLine: false }],
  Decolorize: [{ stages: '| decolorize', requiredLabelNames: [], readsTimestamp: false, rewritesLine: true, isParser: false, readsLine: true }],
};

function stagesOf(query: string): PipelineStage[] {
  return (parseChecked(`{app="x"} ${query}`) as LogSelectorExpr).pipeline;
}

describe('the stage contract', () => {
  it('takes the timestamp as an argument and requires the label hints of every stage (types)', () => {
    expectTypeOf<Parameters<Stage['process']>>().toEqualTypeOf<[timestampNs: bigint, line: string, labels: LabelsBuilder]>();
    expectTypeOf<Stage['requiredLabelNames']>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<Stage['readsTimestamp']>().toEqualTypeOf<boolean>();
    expectTypeOf<Stage['rewritesLine']>().toEqualTypeOf<boolean>();
    expectTypeOf<Stage['isParser']>().toEqualTypeOf<boolean>();
    expectTypeOf<Stage['readsLine']>().toEqualTypeOf<boolean>();
  });

  for (const [kind, examples] of Object.entries(EXAMPLES)) {
    it(`${kind} declares the labels it reads, whether it reads the timestamp or the line, rewrites it or parses it`, () => {
      for (const example of examples) {
        const parsed = stagesOf(example.stages);
        expect(parsed.map((s) => s.kind)).toEqual([kind]);
        const stage = compileStage(parsed[0], undefined);
        expect(Array.isArray(stage.requiredLabelNames), example.stages).toBe(true);
        expect([...stage.requiredLabelNames].sort(), example.stages).toEqual(example.requiredLabelNames);
        expect(stage.readsTimestamp, example.stages).toBe(example.readsTimestamp);
        expect(stage.rewritesLine, example.stages).toBe(example.rewritesLine);
        expect(stage.isParser, example.stages).toBe(example.isParser);
        expect(stage.readsLine, example.stages).toBe(example.readsLine);
      }
    });
  }
});

describe('timestamps passed through a pipeline', () => {
  it('gives each line its own timestamp, whichever stream of the query it comes from', () => {
    const pipeline = new CompiledPipeline(stagesOf('| label_format at="{{ __timestamp__ | unixEpochNanos }}" | line_format "{{.app}}@{{ unixEpochMillis __timestamp__ }}"'));
    expect(pipeline.readsTimestamp).toBe(true);
    const cache = new LabelCache();
    const first = pipeline.forStream({ app: 'one' }, cache);
    const second = pipeline.forStream({ app: 'two' }, cache);
    expect(first.process(1_700_000_000_123_456_789n, 'x')).toBe('one@1700000000123');
    expect(second.process(1_600_000_000_000_000_001n, 'y')).toBe('two@1600000000000');
    expect(first.labels.get('at')).toBe('1700000000123456789');
    expect(second.labels.get('at')).toBe('1600000000000000001');
    expect(first.process(1_700_000_000_999_000_000n, 'z')).toBe('one@1700000000999');
  });

  it('tells callers when no stage reads the timestamp', () => {
    expect(new CompiledPipeline(stagesOf('|= "a" | json | level="error" | drop b | decolorize')).readsTimestamp).toBe(false);
    expect(new CompiledPipeline(stagesOf('| json | line_format "{{.a}}"'), { dropUnusedLineFormat: true }).readsTimestamp).toBe(false);
    expect(new CompiledPipeline(stagesOf('| json | line_format "{{.a}}"')).readsTimestamp).toBe(true);
  });
});

describe('parser hints from the stages', () => {
  it('keeps parsers extracting when a stage reads a label, despite the caller hint', () => {
    const reading = new CompiledPipeline(stagesOf('| json | level="error"'), { noLabels: true });
    expect([...reading.requiredLabelNames]).toEqual(['level']);
    const sp = reading.forStream({ app: 'x' }, new LabelCache());
    expect(sp.labels.noLabels).toBe(false);
    expect(sp.process(UNREAD_TIMESTAMP, '{"level":"error"}')).toBe('{"level":"error"}');
    expect(sp.process(UNREAD_TIMESTAMP, '{"level":"info"}')).toBeNull();
  });

  it('lets parsers skip when neither the caller nor a stage reads a label', () => {
    const blind = new CompiledPipeline(stagesOf('| json | drop a'), { noLabels: true });
    expect(blind.requiredLabelNames.size).toBe(0);
    const sp = blind.forStream({ app: 'x' }, new LabelCache());
    expect(sp.labels.noLabels).toBe(true);
    expect(sp.process(UNREAD_TIMESTAMP, '{"level":"info"}')).toBe('{"level":"info"}');
    expect(sp.labels.get('level')).toBeUndefined();
  });

  it('counts the labels of a line_format it leaves out', () => {
    const pipeline = new CompiledPipeline(stagesOf('| logfmt | line_format "{{.msg}}"'), { noLabels: true, dropUnusedLineFormat: true });
    expect(pipeline.stages.length).toBe(1);
    expect([...pipeline.requiredLabelNames]).toEqual(['msg']);
    const sp = pipeline.forStream({ app: 'x' }, new LabelCache());
    expect(sp.process(UNREAD_TIMESTAMP, 'msg=hello')).toBe('msg=hello');
    expect(sp.labels.get('msg')).toBe('hello');
  });
});

describe('pipelines that read stored ASCII bytes', () => {
  const reads = (stages: string, options: { labelsRead?: string[]; noLabels?: boolean } = {}): boolean => new CompiledPipeline(stagesOf(stages), options).readsAscii;

  it('read bytes when literal line filters and a json or logfmt parser come first, the query says which labels it reads, and nothing after reads the line', () => {
    expect(reads('| json | status >= 500', { labelsRead: ['route'] })).toBe(true);
    expect(reads('| json | drop a | keep route, status | level="error"', { labelsRead: ['route'] })).toBe(true);
    expect(reads('| json', { noLabels: true })).toBe(true);
    // Every label may be read: the text reader names nested and odd keys.
    expect(reads('| json | status >= 500')).toBe(false);
    // A later stage reads the line.
    expect(reads('| json | line_format "{{.route}}" |= "x"', { labelsRead: ['route'] })).toBe(false);
    expect(reads('| json | label_format l="{{ __line__ }}"', { labelsRead: ['l'] })).toBe(false);
    expect(reads('| logfmt --strict | status >= 500', { labelsRead: ['route'] })).toBe(true);
    // Literal line filters before the parser test the bytes too (a filter written after it runs first).
    expect(reads('|= "error" != "debug" | json | status >= 500', { labelsRead: ['route'] })).toBe(true);
    expect(reads('| json |= "error"', { labelsRead: ['route'] })).toBe(true);
    expect(reads('|~ "err(or)?" | json', { labelsRead: ['route'] })).toBe(false);
    expect(reads('|= "a" or "b" | json', { labelsRead: ['route'] })).toBe(true);
    expect(reads('|= "a" or ip("10.0.0.1") | json', { labelsRead: ['route'] })).toBe(false);
    // Parsers that read only text.
    expect(reads('| json route="r"', { labelsRead: ['route'] })).toBe(false);
    expect(reads('| logfmt route, status', { labelsRead: ['route'] })).toBe(false);
    expect(reads('| regexp `(?P<route>\\S+)`', { labelsRead: ['route'] })).toBe(false);
  });

  it('keep or drop lines read from bytes as from their text, and hand back the lines the text reader must read', () => {
    const pipeline = new CompiledPipeline(stagesOf('| json | status >= 500'), { labelsRead: ['route'] });
    const sp = pipeline.forStream({ app: 'x' }, new LabelCache());
    const bytes = (line: string) => Buffer.from(line, 'latin1');
    const run = (line: string) => sp.processAscii(UNREAD_TIMESTAMP, bytes(line), 0, line.length);
    expect(run('{"route":"/a","status":503}')).toBe(ASCII_KEPT);
    expect(sp.labels.get('route')).toBe('/a');
    expect(run('{"route":"/a","status":200}')).toBe(ASCII_DROPPED);
    expect(run('{"req":{"id":1},"route":"/a","status":503}')).toBe(ASCII_NEEDS_TEXT);
    expect(run('{"msg":"a \\"quoted\\" word","route":"/a","status":503}')).toBe(ASCII_NEEDS_TEXT);
    expect(run('not json')).toBe(ASCII_NEEDS_TEXT);
    expect(sp.labels.get('route')).toBeUndefined();
    // A literal filter before the parser drops lines on their bytes.
    const filtered = new CompiledPipeline(stagesOf('|= "/a" | json | status >= 500'), { labelsRead: ['route'] }).forStream({ app: 'x' }, new LabelCache());
    const runFiltered = (line: string) => filtered.processAscii(UNREAD_TIMESTAMP, bytes(line), 0, line.length);
    expect(runFiltered('{"route":"/b","status":503}')).toBe(ASCII_DROPPED);
    expect(runFiltered('{"route":"/a","status":503}')).toBe(ASCII_KEPT);
    expect(filtered.labels.get('route')).toBe('/a');
    // In the middle of a larger buffer, as a stored block holds it.
    const block = bytes('xx{"status":"500","route":"/b"}yy');
    expect(sp.processAscii(UNREAD_TIMESTAMP, block, 2, block.length - 2)).toBe(ASCII_KEPT);
    expect(sp.labels.get('route')).toBe('/b');
  });
});
