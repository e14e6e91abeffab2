/**
 * Template throughput in lines per second on one core: `| line_format` and `| label_format`
 * after `| logfmt`, from the `{{.name}}` short cut through field joins, function calls and
 * conditionals to time formatting, each run through a stream pipeline as queries run them.
 * The logfmt-only case is the floor the template cases stand on.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/lineFormat.bench.js
 */
import { Bench } from 'tinybench';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import type { LogSelectorExpr } from '../../engine/logql/index.js';
import { CompiledPipeline, LabelCache } from '../../engine/logql/eval/index.js';
import { Random, logfmtLine } from './data.js';
import { printLineRates } from './lineRates.js';
import { runWhenDirect } from '../runDirect.js';

const LINES = 5_000;
const FIRST_TIMESTAMP_NS = 1_767_225_600_000_000_000n;

function runner(stages: string, lines: readonly string[]): () => number {
  const query = `{app="bench"} | logfmt ${stages}`;
  const expr = parseLogQL(query) as LogSelectorExpr;
  checkLogQL(expr, query);
  const pipeline = new CompiledPipeline(expr.pipeline);
  const sp = pipeline.forStream({ app: 'bench' }, new LabelCache());
  return () => {
    let bytes = 0;
    for (let i = 0; i < lines.length; i++) {
      const out = sp.process(FIRST_TIMESTAMP_NS + BigInt(i) * 1_000_000n, lines[i]);
      if (out === null) continue;
      sp.labels.result();
      bytes += out.length;
    }
    return bytes;
  };
}

/** main runs the template cases and prints lines per second. */
export async function main(): Promise<void> {
  const r = new Random(11);
  const lines = Array.from({ length: LINES }, () => logfmtLine(r));
  const cases: Array<[string, string]> = [
    ['logfmt only', ''],
    ['line_format field', '| line_format "{{.level}}"'],
    ['line_format fields', '| line_format "{{.level}} {{.method}} {{.status}} took {{.took}}"'],
    ['line_format functions', '| line_format `{{ToUpper .level}} {{.method | lower}} {{printf "%5s" .status}}`'],
    ['line_format if/else', '| line_format `{{if eq .level "error"}}E {{.msg}}{{else}}{{.level}}{{end}}`'],
    ['line_format time', '| line_format `{{__timestamp__ | date "2006-01-02 15:04:05.000"}} {{.level}}`'],
    ['label_format', '| label_format combo=`{{.level}}-{{.status}}`, lvl=level'],
  ];
  // A pass over the lines takes a quarter second or more, so time bounds the run, not a count.
  const bench = new Bench({ time: 1500, warmupTime: 300, iterations: 5, warmupIterations: 2 });
  for (const [name, stages] of cases) {
    const run = runner(stages, lines);
    if (run() === 0) throw new Error(`${name}: produced no output`);
    bench.add(name, () => void run());
  }
  await bench.run();
  printLineRates(bench, 'Template throughput (one core)', cases.map(([name]) => name), LINES);
}

runWhenDirect(import.meta.url, main);
