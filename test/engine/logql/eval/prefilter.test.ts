import { describe, expect, it } from 'vitest';
import { parseLogQL } from '../../../../engine/logql/index.js';
import type { LogSelectorExpr } from '../../../../engine/logql/ast.js';
import { CompiledPipeline, LabelCache } from '../../../../engine/logql/eval/index.js';
import { ASCII_DROPPED } from '../../../../engine/logql/eval/pipeline/pipeline.js';
import { prefilterOf } from '../../../../engine/logql/eval/pipeline/prefilter.js';
import { UNREAD_TIMESTAMP } from '../../../../engine/logql/eval/pipeline/stage.js';
import { PrefilterUse } from '../../../../engine/logql/eval/logQuery.js';
import { jsonLine, logfmtLine } from '../../../support/generatedLogLines.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * A raw query's prefilter (its opening filters with the parser told which labels they read,
 * and line filters for the texts label filters want) may drop only lines the whole pipeline
 * drops, reading text or stored bytes, whatever the line: escapes that spell a wanted text,
 * nested objects, repeated keys, malformed documents, keys naming a stream label.
 */

const stagesOf = (pipeline: string) => (parseLogQL(`{app="x"} ${pipeline}`) as LogSelectorExpr).pipeline;

describe('which raw queries get a prefilter', () => {
  it('opens with line filters, one parser without parameters and label filters that ignore errors', () => {
    for (const pipeline of ['| json | route="/r1"', '|= "GET" | logfmt | status >= 500', '| app="x" | json | route=~"/r.*" | line_format "{{.route}}"', '| logfmt --strict | a="b" or c="d"']) {
      expect(prefilterOf(stagesOf(pipeline)), pipeline).toBeDefined();
    }
    for (const pipeline of [
      '| json',
      '|= "x" | route="/r1"',
      '| json | __error__ = ""',
      '| json | route = ip("10.0.0.0/8")',
      '| json route="route" | route="/r1"',
      '| line_format "{{.a}}" | json | route="/r1"',
      '| regexp "(?P<route>/r[0-9])" | route="/r1"',
      '| json | drop level | route="/r1"',
    ]) {
      expect(prefilterOf(stagesOf(pipeline)), pipeline).toBeUndefined();
    }
  });

  it('tests a wanted text only in streams that do not carry the label, and leaves errors to the pipeline', () => {
    const prefilter = prefilterOf(stagesOf('| json | route="/r1"'))!;
    const cache = new LabelCache();
    // The stream's own route is what the filter reads there; the line need not hold it.
    expect(prefilter.forStream({ app: 'x', route: '/r1' }, cache).process(UNREAD_TIMESTAMP, '{"msg":"hello"}')).not.toBeNull();
    expect(prefilter.forStream({ app: 'x' }, cache).process(UNREAD_TIMESTAMP, '{"msg":"hello"}')).toBeNull();
    // The members after those it reads may be malformed; the line's error then keeps it in an ip() filter.
    const line = '{"status":"200","route":"/r1",}';
    const stages = stagesOf('| json | status="200" | route = ip("10.0.0.0/8")');
    expect(new CompiledPipeline(stages).forStream({ app: 'x' }, cache).process(UNREAD_TIMESTAMP, line)).not.toBeNull();
    expect(prefilterOf(stages)!.forStream({ app: 'x' }, cache).process(UNREAD_TIMESTAMP, line)).not.toBeNull();
    // An escape may spell the text: the parser decides such a line.
    expect(prefilter.forStream({ app: 'x' }, cache).process(UNREAD_TIMESTAMP, '{"route":"\\/r1"}')).not.toBeNull();
  });
});

const JSON_FILTERS = [
  'route="/r1"',
  'msg="ABC"',
  'level="error" and status="200"',
  'route="stream-route"',
  'route_extracted="/r1"',
  'status >= 500',
  'a_b="info" and route="/r2"',
  'route="/r3" or level="warn"',
  'user_id=~"/r.*"',
  'msg!="info"',
  '_1st="/r2" | route="/r2"',
  'status="1e3"',
  'route=~"/r1|/r3"',
  'msg=~"(?i)abc"',
  'route=~"/r[12]" and level=~"error|warn"',
  'route=~"|/r1"',
  // Filters that decide by the line's error stay out of the prefilter: a parser told which
  // labels are read stops once it has them, before a malformed member would give the error.
  'status >= 200 | __error__ != ""',
  'status="200" | route = ip("10.0.0.0/8")',
  'route=~"/r[12]" | user_id != ip("10.0.0.1")',
]
const LOGFMT_FILTERS = ['route="/r1"', 'route=~"/r1|/r2" and status="200"', 'msg="quoted text"', 'msg="with \\"escape\\""', 'status >= 500 and level="error"', 'route="stream-route"', 'user_id="a=b"', 'ts=""'];

describe('prefilter against the whole pipeline', () => {
  it('never drops a line the whole pipeline keeps, from text or from a block of bytes', () => {
    let kept = 0;
    let dropped = 0;
    for (let seed = 1; seed <= 240; seed++) {
      const random = new SeededRandom(seed);
      const logfmt = random.chance(0.4);
      const parser = logfmt ? random.pick(['logfmt', 'logfmt --strict', 'logfmt --keep-empty']) : 'json';
      const pipeline = `${random.chance(0.2) ? '|= "r" ' : ''}| ${parser} | ${random.pick(logfmt ? LOGFMT_FILTERS : JSON_FILTERS)}`;
      const stages = stagesOf(pipeline);
      const prefilter = prefilterOf(stages)!;
      const base: Record<string, string> = random.chance(0.5) ? { app: 'x' } : { app: 'x', route: 'stream-route' };
      const cache = new LabelCache();
      const whole = new CompiledPipeline(stages).forStream(base, cache);
      const fromText = prefilter.forStream(base, cache);
      const fromBytes = prefilter.forStream(base, cache);
      const lines = Array.from({ length: 300 }, () => (logfmt ? logfmtLine(random) : jsonLine(random)));
      // One buffer, lines asked in order, as a stored block hands them over.
      const block = Buffer.from(lines.join('\n'), 'latin1');
      let start = 0;
      for (const line of lines) {
        const end = start + line.length;
        const context = `seed ${seed} ${pipeline} base ${JSON.stringify(base)} line ${JSON.stringify(line)}`;
        const textKept = fromText.process(UNREAD_TIMESTAMP, line) !== null;
        const bytesKept = !prefilter.readsAscii || fromBytes.processAscii(UNREAD_TIMESTAMP, block, start, end) !== ASCII_DROPPED;
        if (whole.process(UNREAD_TIMESTAMP, line) !== null) {
          kept++;
          expect(textKept, context).toBe(true);
          expect(bytesKept, context).toBe(true);
        } else if (!textKept && !bytesKept) {
          dropped++;
        }
        start = end + 1;
      }
    }
    // Both outcomes are met often: the prefilter drops most lines the pipeline drops.
    expect(kept).toBeGreaterThan(3000);
    expect(dropped).toBeGreaterThan(30000);
  });
});

describe("a raw query's use of its prefilter", () => {
  it('stays on while it drops most lines and goes off once it keeps most', () => {
    const use = new PrefilterUse();
    for (let i = 0; i < 3 * 4096; i++) expect(use.kept(i % 3 === 0)).toBe(i % 3 === 0);
    expect(use.on).toBe(true);
    for (let i = 0; i < 4096; i++) use.kept(i % 3 !== 0);
    expect(use.on).toBe(false);
  });
});
