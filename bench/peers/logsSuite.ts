import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Dataset } from './dataset.js';
import type { RunningSystem } from './peers.js';
import { median, percentile } from './stats.js';

/**
 * Log queries against Sluice (neither peer stores logs), with `grep -F -c` over the same
 * bytes as the reference for scan rate. Each query runs cold (first query after a restart, so
 * no segment is cached) and then warm (median of repetitions). The line-filter count is
 * checked against grep's and the total count against the dataset's, so the scan is honest.
 */
export const FILTER_TEXT = 'upstream timeout';

export interface LogQueryDefinition {
  name: string;
  body: Record<string, unknown>;
}

export interface LogQueryResult {
  name: string;
  query: string;
  coldMs: number;
  warmMedianMs: number;
  warmP90Ms: number;
  bytes: number;
  /** Input bytes per second at the warm median, as grep's rate below. */
  scanMiBPerSecond: number;
}

export interface LogsSuiteResult {
  rawBytes: number;
  grep: { matches: number; medianMs: number; scanMiBPerSecond: number };
  sluiceFilterCount: number;
  sluiceTotalCount: number;
  expectedTotal: number;
  queries: LogQueryResult[];
}

export function logQueries(dataset: Dataset): LogQueryDefinition[] {
  const s = String(dataset.startMs - 1000);
  const e = String(dataset.endMs + 1000);
  const span = `${Math.ceil((dataset.endMs - dataset.startMs) / 1000) + 60}s`;
  const traceId = traceIdOfLine(dataset, Math.floor(dataset.scale.logLines / 3));
  return [
    { name: 'line filter, limit 1000', body: { q: `{env="bench"} |= "${FILTER_TEXT}"`, s, e, limit: 1000 } },
    { name: 'line filter, newest 100', body: { q: `{service_name="payments"} |= "timeout"`, s, e, limit: 100, reverse: true } },
    { name: 'count_over_time, whole data', body: { q: `sum(count_over_time({env="bench"}[${span}]))`, s: e, e } },
    { name: 'sum by level, whole data', body: { q: `sum by (level) (count_over_time({env="bench"}[${span}]))`, s: e, e } },
    { name: 'filter count, whole data', body: { q: `sum(count_over_time({env="bench"} |= "${FILTER_TEXT}" [${span}]))`, s: e, e } },
    { name: 'json parse and filter', body: { q: `sum by (route) (count_over_time({env="bench"} | json | status >= 500 [${span}]))`, s: e, e } },
    // What someone holding a trace id asks: every line searched, as text and through the parser.
    // The one line that holds it leaves no early stop: a raw search reads all the bytes grep does.
    { name: 'line filter for one trace id', body: { q: `{env="bench"} |= "${traceId}"`, s, e, limit: 100 } },
    { name: 'json search for one trace id', body: { q: `{env="bench"} | json | trace_id="${traceId}"`, s, e, limit: 100 } },
  ];
}

/** traceIdOfLine is the trace id of the dataset's log line `index` (its lines are generated in order). */
function traceIdOfLine(dataset: Dataset, index: number): string {
  let i = 0;
  for (const entry of dataset.logs()) {
    if (i++ === index) return (JSON.parse(entry.line) as { trace_id: string }).trace_id;
  }
  throw new Error(`the dataset has no log line ${index}`);
}

interface LogAnswer {
  ms: number;
  bytes: number;
  text: string;
}

async function askLogs(sys: RunningSystem, body: Record<string, unknown>): Promise<LogAnswer> {
  const started = performance.now();
  const res = await fetch(`${sys.url}/api/v1/logs/query`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': sys.key, 'content-type': 'application/json' } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200 || !text.includes('"type":"done","data":{"status":"ok"')) throw new Error(`sluice logs query ${String(body.q)} failed: ${res.status} ${text.slice(-300)}`);
  return { ms, bytes: Buffer.byteLength(text), text };
}

function firstValue(text: string): number {
  const m = /"type":"result","data":\{[^\n]*?"value":([0-9.e+-]+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

function grepCount(file: string): { matches: number; ms: number } {
  const started = performance.now();
  const res = spawnSync('grep', ['-F', '-c', FILTER_TEXT, file], { encoding: 'utf8' });
  return { matches: Number(res.stdout.trim()), ms: performance.now() - started };
}

/**
 * runLogsSuite needs a Sluice just restarted (for the cold runs) and the raw file the loader
 * wrote.
 */
export async function runLogsSuite(sys: RunningSystem, dataset: Dataset, rawFile: string, repetitions: number, log: (line: string) => void): Promise<LogsSuiteResult> {
  const definitions = logQueries(dataset);
  const rawBytes = statSync(rawFile).size;
  const mibPerSecond = (ms: number): number => rawBytes / 2 ** 20 / (ms / 1000);
  const cold = new Map<string, LogAnswer>();
  for (const d of definitions) cold.set(d.name, await askLogs(sys, d.body));
  const warm = new Map<string, number[]>(definitions.map((d) => [d.name, []]));
  const grepRuns: number[] = [];
  let grepMatches = 0;
  for (let round = 0; round < repetitions; round++) {
    for (const d of definitions) warm.get(d.name)!.push((await askLogs(sys, d.body)).ms);
    const g = grepCount(rawFile);
    grepRuns.push(g.ms);
    grepMatches = g.matches;
  }
  const byName = (name: string): LogAnswer => cold.get(name)!;
  const result: LogsSuiteResult = {
    rawBytes,
    grep: { matches: grepMatches, medianMs: median(grepRuns), scanMiBPerSecond: mibPerSecond(median(grepRuns)) },
    sluiceFilterCount: firstValue(byName('filter count, whole data').text),
    sluiceTotalCount: firstValue(byName('count_over_time, whole data').text),
    expectedTotal: dataset.scale.logLines,
    queries: definitions.map((d) => {
      const runs = warm.get(d.name)!;
      return {
        name: d.name,
        query: String(d.body.q),
        coldMs: cold.get(d.name)!.ms,
        warmMedianMs: median(runs),
        warmP90Ms: percentile(runs, 90),
        bytes: cold.get(d.name)!.bytes,
        scanMiBPerSecond: mibPerSecond(median(runs)),
      };
    }),
  };
  for (const name of ['line filter for one trace id', 'json search for one trace id']) {
    const traceRows = (byName(name).text.match(/"type":"result"/g) ?? []).length;
    if (traceRows === 0) throw new Error(`${name}: sluice found no line with the trace id searched for`);
  }
  log(`logs: grep -F -c found ${grepMatches} in ${result.grep.medianMs.toFixed(0)} ms; Sluice counted ${result.sluiceFilterCount} and ${result.sluiceTotalCount} lines of ${result.expectedTotal}`);
  return result;
}
