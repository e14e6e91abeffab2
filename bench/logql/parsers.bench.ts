/**
 * Parser throughput in lines per second on one core: `| json`, `| logfmt`, their extraction
 * forms, `| regexp` and `| pattern`, each run through a stream pipeline exactly as queries run
 * them (label builder reset per line, labels finished into a series key). The "labels read"
 * cases run the same parsers told which labels a `sum by (...)` reads (Loki's required-labels
 * hint) and print their time against the plain case's, measured in the same run.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/parsers.bench.js
 */
import { Bench } from 'tinybench';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import type { LogSelectorExpr } from '../../engine/logql/index.js';
import { CompiledPipeline, LabelCache, UNREAD_TIMESTAMP } from '../../engine/logql/eval/index.js';
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
  const bench = new Bench({ time: 1500, warmupTime: 300 });
  for (const [name, stages, lines, labelsRead] of cases) {
    const run = runner(stages, lines, labelsRead);
    if (run() === 0 && !name.includes('filter')) throw new Error(`${name}: no line survived`);
    bench.add(name, () => void run());
  }
  await bench.run();
  printLineRates(bench, 'Parser throughput (one core)', cases.map(([name]) => name), LINES);
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
}

runWhenDirect(import.meta.url, main);
