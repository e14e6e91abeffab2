/**
 * Log queries that search (`|= "4bf92f35"`, `| json | trace_id="…"`, `| json | status >= 500`),
 * over segments and a head as a worker answers them. Raw queries: with the prefilter (the
 * opening filters with the parser told which labels they read, and a line filter for a wanted
 * text) and the opening literal filters searched in the stored bytes, against every line
 * through the whole pipeline, which the same query gets when a stage that neither opens with
 * comes first (`| drop` of a label no line has). Metric queries, which read the stored bytes
 * either way: with and without the line filters in front (a wanted text's is left out when an
 * `__error__=""` filter, true of every line here, comes before the wanted one). Both run in one
 * process, alternated by tinybench, so only the ratio matters.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/rawSearch.bench.js
 */
import { Bench } from 'tinybench';
import { evaluateLogQLInstant, evaluateLogQuery } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMedianMs } from '../taskResult.js';
import { BASE_MS, LINES, ORG, SPAN_MS, requestLines, traceIdOf } from './requestLines.js';
import { twoSegmentsAndHead } from './twoSegmentsAndHead.js';

/** main fills a store, checks both ways answer alike, and times them. */
export async function main(): Promise<void> {
  const store = await twoSegmentsAndHead(ORG, LINES, requestLines);
  try {
    const options = { startNs: BigInt(BASE_MS) * 1_000_000n, endNs: BigInt(BASE_MS + SPAN_MS + 60_000) * 1_000_000n, direction: 'backward' as const, limit: 100 };
    const traceId = traceIdOf(Math.floor(LINES / 3));
    const raw = (filters: string) => () => JSON.stringify(evaluateLogQuery(parseLogQL(`{env="bench"} ${filters}`), store.view, options).map((r) => [String(r.timestampNs), r.tags]));
    const metric = (filters: string) => () => JSON.stringify(evaluateLogQLInstant(parseLogQL(`sum by (route) (count_over_time({env="bench"} ${filters} [7h]))`), store.view, BASE_MS + SPAN_MS + 60_000), (_k, x: unknown) => (x instanceof Float64Array ? [...x] : x));
    const cases = [
      { name: 'raw |= "…" (a trace id)', run: raw, filters: `|= "${traceId}"` },
      { name: 'raw | json | trace_id="…"', run: raw, filters: `| json | trace_id="${traceId}"` },
      { name: 'raw | json | status >= 500, limit 100', run: raw, filters: '| json | status >= 500' },
      { name: 'raw | json | route= and status=', run: raw, filters: '| json | route="/api/cart" and status="404"' },
      { name: 'count by route | json | trace_id="…"', run: metric, filters: `| json | trace_id="${traceId}"`, whole: `| json | __error__="" | trace_id="${traceId}"` },
      { name: 'count by route |= "/api/cart" | json', run: metric, filters: '|= "/api/cart" | json' },
      // A filter every line passes: what searching the bytes first costs when it spares nothing,
      // against the filter written after the parser, which the pipeline runs first all the same
      // (on the stored bytes) but which does not open it.
      { name: 'count by route |= "status" | json', run: metric, filters: '|= "status" | json', whole: '| json |= "status"' },
      // A `drop` matcher, so a `!=` after it reads as a line filter, not as the drop's own `name!="text"`.
    ].map((c) => ({ name: c.name, prefiltered: c.run(c.filters), whole: c.run(c.whole ?? `| drop no_such_label="never" ${c.filters}`) }));
    for (const c of cases) {
      const answer = c.prefiltered();
      if (answer.length < 10 || answer !== c.whole()) throw new Error(`${c.name}: the prefilter changed the answer`);
    }
    const bench = new Bench({ time: 0, iterations: 7, warmup: true, warmupIterations: 2, warmupTime: 0 });
    for (const c of cases) {
      bench.add(`${c.name} | whole pipeline`, () => void c.whole());
      bench.add(`${c.name} | prefiltered`, () => void c.prefiltered());
    }
    await bench.run();
    console.log(`${LINES} lines in two segments and a head (median ms; ratio prefiltered / whole pipeline)`);
    for (const c of cases) {
      const w = taskMedianMs(bench, `${c.name} | whole pipeline`);
      const p = taskMedianMs(bench, `${c.name} | prefiltered`);
      console.log(`  ${c.name.padEnd(44)}${w.toFixed(1).padStart(10)}${p.toFixed(1).padStart(10)}${`${(p / w).toFixed(2)}x`.padStart(9)}`);
    }
  } finally {
    await store.close();
  }
}

runWhenDirect(import.meta.url, main);
