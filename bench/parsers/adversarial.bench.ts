/**
 * Parse time of adversarial expressions: every shape of bench/parsers/shapes.ts (deep nesting,
 * long operator chains, huge literals, runs of each punctuation character, random bytes) at
 * 1 MiB, and at the 128 KiB length limit where the parsers do their real work. The target is
 * under 100 ms per expression, parse or refusal; the table flags shapes above it.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/parsers/adversarial.bench.js
 * Only some shapes: BENCH_SHAPES="deep,chain" node dist/bench/parsers/adversarial.bench.js
 */
import { Bench } from 'tinybench';
import { EngineError } from '../../engine/errors.js';
import { MAX_QUERY_LENGTH as LOGQL_MAX, checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import { MAX_QUERY_LENGTH as PROMQL_MAX, parseAndCheckPromQL } from '../../engine/promql/index.js';
import { runWhenDirect } from '../runDirect.js';
import { LOGQL_SHAPES, PROMQL_SHAPES, type Shape } from './shapes.js';
import { completedResult } from '../taskResult.js';

const TARGET_MS = 100;
const MIB = 1 << 20;

interface Case {
  name: string;
  text: string;
  run: (text: string) => void;
}

/** outcomeOf runs a front end, turning its positioned error into a result like a success. */
function outcomeOf(run: (text: string) => void, text: string): string {
  try {
    run(text);
    return 'ok';
  } catch (err) {
    if (err instanceof EngineError) return err.position === undefined ? 'error without position' : 'error';
    throw err;
  }
}

function cases(language: string, shapes: Shape[], sizes: number[], run: (text: string) => void): Case[] {
  const wanted = (process.env.BENCH_SHAPES ?? '').split(',').filter((s) => s !== '');
  return shapes
    .filter((shape) => wanted.length === 0 || wanted.some((w) => shape.name.includes(w)))
    .flatMap((shape) => sizes.map((size) => ({ name: `${language} ${shape.name} ${Math.round(size / 1024)}K`, text: shape.make(size), run })));
}

export async function main(): Promise<void> {
  const all = [
    ...cases('promql', PROMQL_SHAPES, [MIB, PROMQL_MAX], (text) => void parseAndCheckPromQL(text)),
    ...cases('logql', LOGQL_SHAPES, [MIB, LOGQL_MAX - 1], (text) => checkLogQL(parseLogQL(text), text)),
  ];
  const bench = new Bench({ time: 100, warmupTime: 20, iterations: 3, warmupIterations: 1 });
  const outcomes = new Map<string, string>();
  for (const c of all) {
    outcomes.set(c.name, outcomeOf(c.run, c.text));
    bench.add(c.name, () => void outcomeOf(c.run, c.text));
  }
  await bench.run();
  const rows = all.map((c) => {
    const result = completedResult(bench, c.name);
    return { name: c.name, meanMs: result.latency.mean, maxMs: result.latency.max, outcome: outcomes.get(c.name)! };
  });
  rows.sort((a, b) => b.meanMs - a.meanMs);
  console.log(`\nParse or refusal time per expression (target ${TARGET_MS} ms), slowest first`);
  for (const row of rows) {
    const flag = row.meanMs > TARGET_MS ? '  OVER TARGET' : '';
    console.log(`  ${row.name.padEnd(44)} ${row.meanMs.toFixed(1).padStart(8)} ms  max ${row.maxMs.toFixed(1).padStart(8)} ms  ${row.outcome}${flag}`);
  }
  const over = rows.filter((r) => r.meanMs > TARGET_MS).length;
  console.log(`\n${rows.length} expressions, ${over} over ${TARGET_MS} ms`);
}

runWhenDirect(import.meta.url, main);
