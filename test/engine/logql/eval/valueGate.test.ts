import { describe, expect, it } from 'vitest';
import type { LogSelectorExpr, PipelineStage } from '../../../../engine/logql/index.js';
import { CompiledPipeline, LabelCache, LabelsBuilder, StreamPipeline, UNREAD_TIMESTAMP } from '../../../../engine/logql/eval/index.js';
import { LabelFilter } from '../../../../engine/logql/eval/pipeline/labelFilter.js';
import { ASCII_DROPPED, ASCII_KEPT, ASCII_NEEDS_TEXT, type ValueGate } from '../../../../engine/logql/eval/pipeline/stage.js';
import { SeededRandom } from '../../../support/seededRandom.js';
import { jsonLine, logfmtLine } from '../../../support/generatedLogLines.js';
import { parseChecked } from './helpers.js';

/**
 * A label filter right after a parser that reads stored bytes is first asked of the values
 * found while they are bytes (ValueGate): a line it drops there never has its labels made. The
 * lines kept and their labels must be exactly those of the text reader and the whole filter,
 * over lines of every shape, values of every spelling and stream labels the keys collide with.
 */

function stagesOf(query: string): PipelineStage[] {
  return (parseChecked(`{app="x"} ${query}`) as LogSelectorExpr).pipeline;
}

/** Filters the gate decides (at least in part), and ones it leaves to the filter. */
const GATED = [
  'status >= 500',
  'status < 300',
  'status == 0',
  'status != 200',
  'route="/r1"',
  'route!="/r2"',
  'level="error", status > 400',
  'status > 400 or route="/r3"',
  'route="/r1" and status =~ "5.."',
];
const NOT_GATED = ['route=~"/r[12]"', 'status > 400 or route=~"/r.*"', 'took > 10ms', '__error__=""'];

const BASES: Record<string, string>[] = [{ app: 'x' }, { app: 'x', route: 'stream-route' }, { app: 'x', status: '503' }];

const STATUSES = ['200', '503', '404', '0', '-0', '+7', '5e2', '500.0', '1234567890123456', '12abc', ''];
const ROUTES = ['/r1', '/r2', '/r3', ''];

/** serviceLine is a line as services write them, its status and route of any spelling, now and then missing. */
function serviceLine(random: SeededRandom, json: boolean): string {
  const fields: [string, string][] = [];
  if (random.chance(0.9)) fields.push(['status', random.pick(STATUSES)]);
  if (random.chance(0.9)) fields.push(['route', random.pick(ROUTES)]);
  if (random.chance(0.7)) fields.push(['level', random.pick(['info', 'error'])]);
  if (random.chance(0.5)) fields.push(['msg', 'done']);
  if (random.chance(0.5)) fields.reverse();
  if (!json) return fields.map(([k, v]) => `${k}=${v}`).join(' ');
  const quoted = (k: string, v: string) => (k !== 'status' || v === '' || random.chance(0.3) ? `"${v}"` : v);
  return `{${fields.map(([k, v]) => `"${k}":${quoted(k, v)}`).join(',')}}`;
}

/** Outcomes of compare: lines the gate dropped, lines the whole filter decided, lines only text can read. */
interface Counts {
  gateDropped: number;
  filtered: number;
  text: number;
}

/**
 * compare runs `query` over 400 generated lines per seed, from bytes through the gate (counting
 * its drops) and from text, told that `route` is read after the pipeline.
 */
function compare(query: string, lineOf: (random: SeededRandom) => string, firstSeed: number): Counts {
  const counts: Counts = { gateDropped: 0, filtered: 0, text: 0 };
  const pipeline = new CompiledPipeline(stagesOf(query), { labelsRead: ['route'] });
  expect(pipeline.readsAscii, query).toBe(true);
  const filter = pipeline.stages[1];
  expect(filter, query).toBeInstanceOf(LabelFilter);
  const gate = (filter as LabelFilter).valueGate!;
  expect(gate, query).toBeDefined();
  const countingGate: ValueGate = (found, bytes) => {
    const keep = gate(found, bytes);
    if (!keep) counts.gateDropped++;
    return keep;
  };
  for (let seed = firstSeed; seed < firstSeed + 20; seed++) {
    const random = new SeededRandom(seed);
    const base = random.pick(BASES);
    const cache = new LabelCache();
    const wanted = new Set(['route', ...pipeline.requiredLabelNames]);
    const fromBytes = new StreamPipeline(pipeline.stages, new LabelsBuilder(base, cache, false, false, wanted), 1, countingGate);
    const fromText = pipeline.forStream(base, cache);
    for (let n = 0; n < 400; n++) {
      const text = lineOf(random);
      const stored = Buffer.from(`..${text}..`, 'latin1');
      const outcome = fromBytes.processAscii(UNREAD_TIMESTAMP, stored, 2, stored.length - 2);
      const context = `${query} seed ${seed} base ${JSON.stringify(base)} line ${JSON.stringify(text)}`;
      if (outcome === ASCII_NEEDS_TEXT) {
        counts.text++;
        continue;
      }
      counts.filtered++;
      const kept = fromText.process(UNREAD_TIMESTAMP, text) !== null;
      expect(outcome, context).toBe(kept ? ASCII_KEPT : ASCII_DROPPED);
      if (kept) expect(fromBytes.labels.entries(), context).toEqual(fromText.labels.entries());
    }
  }
  return counts;
}

describe('label filters decided on the bytes a parser found', () => {
  it.each(GATED)('| json | %s keeps exactly the lines and labels the text reader keeps', (filter) => {
    const counts = compare(`| json | ${filter}`, (random) => (random.chance(0.5) ? jsonLine(random) : serviceLine(random, true)), 1);
    // The gate decides lines, and leaves others to the filter, often enough to mean something.
    expect(counts.gateDropped, filter).toBeGreaterThan(100);
    expect(counts.filtered - counts.gateDropped, filter).toBeGreaterThan(100);
  });

  it.each(GATED)('| logfmt | %s keeps exactly the lines and labels the text reader keeps', (filter) => {
    const counts = compare(`| logfmt | ${filter}`, (random) => (random.chance(0.5) ? logfmtLine(random) : serviceLine(random, false)), 101);
    expect(counts.gateDropped, filter).toBeGreaterThan(100);
    expect(counts.filtered - counts.gateDropped, filter).toBeGreaterThan(100);
  });

  it('leaves filters it cannot decide on bytes to the filter', () => {
    for (const filter of NOT_GATED) {
      const pipeline = new CompiledPipeline(stagesOf(`| json | ${filter}`), { labelsRead: ['route'] });
      expect((pipeline.stages[1] as LabelFilter).valueGate, filter).toBeUndefined();
    }
  });

  it('is asked by pipelines only for the filter right after the parser, and drops before any label is made', () => {
    const bytes = (line: string) => Buffer.from(line, 'latin1');
    const run = (query: string, line: string) => {
      const sp = new CompiledPipeline(stagesOf(query), { labelsRead: ['route'] }).forStream({ app: 'x' }, new LabelCache());
      return { outcome: sp.processAscii(UNREAD_TIMESTAMP, bytes(line), 0, line.length), route: sp.labels.get('route') };
    };
    const line = '{"route":"/a","status":200}';
    // Dropped by the gate: the parser set nothing.
    expect(run('| json | status >= 500', line)).toEqual({ outcome: ASCII_DROPPED, route: undefined });
    // A stage between parser and filter: the parser sets its labels and the filter drops the line.
    expect(run('| json | drop level | status >= 500', line)).toEqual({ outcome: ASCII_DROPPED, route: '/a' });
    expect(run('| json | status >= 200', line)).toEqual({ outcome: ASCII_KEPT, route: '/a' });
    // A value the bytes cannot tell (a float, text) goes to the filter, which decides as always.
    expect(run('| json | status >= 500', '{"route":"/a","status":5e2}')).toEqual({ outcome: ASCII_KEPT, route: '/a' });
    expect(run('| json | status >= 500', '{"route":"/a","status":"2.5e2"}')).toEqual({ outcome: ASCII_DROPPED, route: '/a' });
  });
});
