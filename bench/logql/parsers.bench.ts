/**
 * Parser throughput in lines per second on one core: `| json`, `| logfmt`, their extraction
 * forms, `| regexp` and `| pattern`, each run through a stream pipeline exactly as queries run
 * them (label builder reset per line, labels finished into a series key). The "labels read"
 * cases run the same parsers told which labels a `sum by (...)` reads (Loki's required-labels
 * hint) and print their time against the plain case's, measured in the same run. The "from
 * bytes" cases hold the lines as a store does (one buffer of ASCII bytes): `| json` and
 * `| logfmt` told which labels are read take them as bytes (processAscii), timed against making
 * each line's string and parsing that, as lines were read before. The "filtered" cases follow
 * the parser with a label filter that drops most lines, decided on the values' bytes before any
 * label is made (ValueGate), timed against the same stages with no gate, which make the
 * labels and let the filter drop the line.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/parsers.bench.js
 */
import { Bench } from 'tinybench';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import type { LogSelectorExpr } from '../../engine/logql/index.js';
import { CompiledPipeline, LabelCache, LabelsBuilder, UNREAD_TIMESTAMP } from '../../engine/logql/eval/index.js';
import { ASCII_DROPPED, ASCII_NEEDS_TEXT, StreamPipeline } from '../../engine/logql/eval/pipeline/pipeline.js';
import { Random, jsonLine, logfmtLine, textLine } from './data.js';
import { printLineRates } from './lineRates.js';
import { runWhenDirect } from '../runDirect.js';

const LINES = 20_000;

function runner(stages: string, lines: readonly string[], labelsRead?: readonly string[]): () => number {
  const query = `{app="bench"} ${stages}`;
  const expr = parseLogQL(query) as LogSelectorExpr;
  checkLogQL(expr, query);
  const pipeline = new CompiledPipeline(expr.pipeline, { labelsRead });
  const sp = pipeline.forStream({ app: 'bench' }, new LabelCache());
  return () => {
    let kept = 0;
    for (let i = 0; i < lines.length; i++) {
      if (sp.process(UNREAD_TIMESTAMP, lines[i]) === null) continue;
      sp.labels.result();
      kept++;
    }
    return kept;
  };
}

/** StoredLines are lines as a store keeps them: one buffer, each line's end. */
interface StoredLines {
  bytes: Buffer;
  ends: Int32Array;
}

function stored(lines: readonly string[]): StoredLines {
  const bytes = Buffer.from(lines.join(''), 'latin1');
  const ends = new Int32Array(lines.length);
  let at = 0;
  lines.forEach((line, i) => (ends[i] = at += line.length));
  return { bytes, ends };
}

/** How storedRunner reads a line: from its bytes (with the label filter's gate, or without it as before), or from a string made of them. */
type StoredRead = 'bytes' | 'bytes, no gate' | 'text';

/** storedRunner runs `stages` told `labelsRead` over stored lines, and counts the lines kept. */
function storedRunner(stages: string, lines: StoredLines, labelsRead: readonly string[], read: StoredRead): () => number {
  const query = `{app="bench"} ${stages}`;
  const expr = parseLogQL(query) as LogSelectorExpr;
  checkLogQL(expr, query);
  const pipeline = new CompiledPipeline(expr.pipeline, { labelsRead });
  if (!pipeline.readsAscii) throw new Error(`${stages} does not read bytes`);
  const cache = new LabelCache();
  // Without the gate: the same stages, the parser (the first) on the bytes, as before gates.
  const sp =
    read === 'bytes, no gate'
      ? new StreamPipeline(pipeline.stages, new LabelsBuilder({ app: 'bench' }, cache, false, false, new Set([...labelsRead, ...pipeline.requiredLabelNames])), 1)
      : pipeline.forStream({ app: 'bench' }, cache);
  const grouping = { without: false, names: [...labelsRead].sort() };
  const { bytes, ends } = lines;
  const fromBytes = read !== 'text';
  return () => {
    let kept = 0;
    for (let i = 0; i < ends.length; i++) {
      const start = i === 0 ? 0 : ends[i - 1];
      const outcome = fromBytes ? sp.processAscii(UNREAD_TIMESTAMP, bytes, start, ends[i]) : ASCII_NEEDS_TEXT;
      if (outcome === ASCII_DROPPED) continue;
      if (outcome === ASCII_NEEDS_TEXT && sp.process(UNREAD_TIMESTAMP, bytes.toString('latin1', start, ends[i])) === null) continue;
      sp.labels.grouped(grouping);
      kept++;
    }
    return kept;
  };
}

/** main runs the parsers and prints lines per second. */
export async function main(): Promise<void> {
  const r = new Random(7);
  const json = Array.from({ length: LINES }, () => jsonLine(r));
  const logfmt = Array.from({ length: LINES }, () => logfmtLine(r));
  const text = Array.from({ length: LINES }, (_, i) => textLine(r, i));
  const cases: Array<[string, string, readonly string[], (readonly string[])?]> = [
    ['json', '| json', json],
    ['json extraction', '| json status="http.status", path="http.path"', json],
    ['logfmt', '| logfmt', logfmt],
    ['logfmt extraction', '| logfmt level, status', logfmt],
    ['regexp', '| regexp `(?P<level>[A-Z]+) (?P<service>\\w+) (?P<method>[A-Z]+) (?P<path>\\S+)`', text],
    ['pattern', '| pattern `<ts> <level> <service> <method> <path> <_>`', text],
    ['logfmt + label filter', '| logfmt | status >= 500', logfmt],
    ['json, labels read: level', '| json', json, ['level']],
    ['json, labels read: service, http_status', '| json', json, ['service', 'http_status']],
    ['logfmt, labels read: level', '| logfmt', logfmt, ['level']],
  ];
  const storedJson = stored(json);
  const storedLogfmt = stored(logfmt);
  const storedCases: Array<[string, string, StoredLines, readonly string[]]> = [
    ['json: level', '| json', storedJson, ['level']],
    ['json: level, service', '| json', storedJson, ['level', 'service']],
    ['logfmt: level', '| logfmt', storedLogfmt, ['level']],
    ['logfmt: level, status', '| logfmt', storedLogfmt, ['level', 'status']],
  ];
  const filteredCases: Array<[string, string, StoredLines, readonly string[]]> = [
    ['json: service | level="error"', '| json | level="error"', storedJson, ['service']],
    ['logfmt: level | status >= 500', '| logfmt | status >= 500', storedLogfmt, ['level']],
  ];
  const bench = new Bench({ time: 1500, warmupTime: 300 });
  for (const [name, stages, lines, labelsRead] of cases) {
    const run = runner(stages, lines, labelsRead);
    if (run() === 0 && !name.includes('filter')) throw new Error(`${name}: no line survived`);
    bench.add(name, () => void run());
  }
  for (const [name, parser, lines, labelsRead] of storedCases) {
    for (const read of ['bytes', 'text'] as const) {
      const run = storedRunner(parser, lines, labelsRead, read);
      if (run() !== LINES) throw new Error(`stored ${name}: lines lost`);
      bench.add(`stored ${read} ${name}`, () => void run());
    }
  }
  for (const [name, stages, lines, labelsRead] of filteredCases) {
    const kept = new Set<number>();
    for (const read of ['bytes', 'bytes, no gate', 'text'] as const) {
      const run = storedRunner(stages, lines, labelsRead, read);
      kept.add(run());
      bench.add(`filtered ${read} ${name}`, () => void run());
    }
    if (kept.size !== 1 || kept.has(0) || kept.has(LINES)) throw new Error(`filtered ${name}: the readings keep ${[...kept].join(', ')} lines`);
  }
  await bench.run();
  const filteredNames = filteredCases.flatMap(([name]) => [`filtered bytes ${name}`, `filtered bytes, no gate ${name}`, `filtered text ${name}`]);
  printLineRates(bench, 'Parser throughput (one core)', [...cases.map(([name]) => name), ...storedCases.flatMap(([name]) => [`stored bytes ${name}`, `stored text ${name}`]), ...filteredNames], LINES);
  // printLineRates failed the run had any task not completed.
  const mean = (name: string): number => {
    const result = bench.getTask(name)!.result;
    return result.state === 'completed' ? result.latency.mean : NaN;
  };
  console.log('\nTold which labels are read, time against extracting every label (same run)');
  for (const [name, stages, , labelsRead] of cases) {
    if (labelsRead === undefined) continue;
    const plain = stages.includes('json') ? 'json' : 'logfmt';
    console.log(`  ${name.padEnd(42)} ${(mean(name) / mean(plain)).toFixed(2)}x`);
  }
  console.log('\nStored lines read as bytes, time against making each line a string first (same run)');
  for (const [name] of storedCases) console.log(`  ${name.padEnd(42)} ${(mean(`stored bytes ${name}`) / mean(`stored text ${name}`)).toFixed(2)}x`);
  console.log('\nA label filter after the parser decided on the bytes, time against no gate / against text (same run)');
  for (const [name] of filteredCases) {
    const gated = mean(`filtered bytes ${name}`);
    console.log(`  ${name.padEnd(42)} ${(gated / mean(`filtered bytes, no gate ${name}`)).toFixed(2)}x / ${(gated / mean(`filtered text ${name}`)).toFixed(2)}x`);
  }
}

runWhenDirect(import.meta.url, main);
