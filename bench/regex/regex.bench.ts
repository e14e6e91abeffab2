/**
 * Regex engine throughput on typical LogQL line-filter and PromQL matcher patterns, against
 * JavaScript's RegExp on the same ~10k realistic log lines. Reports MB/s (UTF-16 input measured
 * as UTF-8 bytes, as the lines would be stored) and the ratio to RegExp for each pattern, for
 * the automatic matcher choice and for the lazy DFA alone.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/regex/regex.bench.js
 */
import { Bench } from 'tinybench';
import { compileRegex, type Regex } from '../../engine/regex/index.js';
import { runWhenDirect } from '../runDirect.js';
import { Random } from '../logql/data.js';
import { taskHz } from '../taskResult.js';

const LINES = 10_000;

const LEVELS = ['info', 'info', 'info', 'info', 'debug', 'debug', 'warn', 'error'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const PATHS = ['/api/v1/items', '/api/v1/cart', '/healthz', '/api/v1/checkout', '/login', '/api/v1/users/profile'];
const MESSAGES = [
  'request completed',
  'cache miss for key',
  'upstream connect timeout after 3000ms',
  'retrying request',
  'java.lang.NullPointerException at com.example.Handler.handle(Handler.java:42)',
  'user session refreshed',
  'Über-Latenz bei Zahlung – Größe 12 KB',
];

/** logLines builds a mix of logfmt, access-log and JSON lines. */
function logLines(count: number): string[] {
  const r = new Random(7);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const ts = `2026-01-01T00:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z`;
    const level = r.pick(LEVELS);
    const status = r.next() < 0.93 ? r.pick([200, 200, 201, 204, 304, 404]) : r.pick([500, 502, 503]);
    const msg = r.pick(MESSAGES);
    switch (i % 3) {
      case 0:
        lines.push(`ts=${ts} level=${level} service=${r.pick(['api', 'web', 'billing'])} method=${r.pick(METHODS)} path=${r.pick(PATHS)} status=${status} duration=${Math.floor(r.next() * 900)}ms trace_id=${r.hex(16)} msg="${msg}"`);
        break;
      case 1:
        lines.push(`10.0.${Math.floor(r.next() * 255)}.${Math.floor(r.next() * 255)} - - [${ts}] "${r.pick(METHODS)} ${r.pick(PATHS)}?id=${r.hex(6)} HTTP/1.1" ${status} ${Math.floor(r.next() * 50000)} "-" "Mozilla/5.0 (X11; Linux x86_64)" ${level.toUpperCase()} ${msg}`);
        break;
      default:
        lines.push(JSON.stringify({ ts, level, caller: 'handler.go:118', msg, status, bytes: Math.floor(r.next() * 9000), trace: r.hex(12) }));
    }
  }
  return lines;
}

function utf8Bytes(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += Buffer.byteLength(line, 'utf8');
  return n;
}

/** FilterCase pairs one of our patterns with the JavaScript RegExp that means the same. */
interface FilterCase {
  pattern: string;
  js: RegExp;
}

const FILTERS: readonly FilterCase[] = [
  { pattern: 'error|warn', js: /error|warn/ },
  { pattern: 'status=5\\d\\d', js: /status=5\d\d/ },
  { pattern: '.*timeout.*', js: /.*timeout.*/ },
  { pattern: '(?i)exception', js: /exception/iu },
  { pattern: '\\berror\\b', js: /\berror\b/ },
  { pattern: 'duration=\\d{3,}ms', js: /duration=\d{3,}ms/ },
  { pattern: '(GET|POST) /api/v1/(cart|checkout)', js: /(GET|POST) \/api\/v1\/(cart|checkout)/ },
  { pattern: '[45]\\d\\d [0-9]+ "-"', js: /[45]\d\d [0-9]+ "-"/ },
];

function countMatches(lines: readonly string[], test: (s: string) => boolean): number {
  let n = 0;
  for (let i = 0; i < lines.length; i++) if (test(lines[i])) n++;
  return n;
}

function rate(bench: Bench, name: string, mb: number): number {
  return mb * taskHz(bench, name);
}

/** main runs the benchmark and prints MB/s per pattern and the ratio to RegExp. */
export async function main(): Promise<void> {
  const lines = logLines(LINES);
  const mb = utf8Bytes(lines) / 1e6;
  const bench = new Bench({ time: 500 });
  const rows: Array<{ pattern: string; strategy: string; matches: number }> = [];

  for (const { pattern, js } of FILTERS) {
    const auto: Regex = compileRegex(pattern);
    const dfa: Regex = compileRegex(pattern, { matcher: 'dfa' });
    const expected = countMatches(lines, (s) => js.test(s));
    for (const [label, re] of [['auto', auto], ['dfa', dfa]] as const) {
      const got = countMatches(lines, (s) => re.test(s));
      if (got !== expected) throw new Error(`${pattern} (${label}) matched ${got} lines, RegExp ${expected}`);
    }
    rows.push({ pattern, strategy: auto.strategy, matches: expected });
    bench
      .add(`${pattern} | sluice`, () => void countMatches(lines, (s) => auto.test(s)))
      .add(`${pattern} | sluice dfa`, () => void countMatches(lines, (s) => dfa.test(s)))
      .add(`${pattern} | RegExp`, () => void countMatches(lines, (s) => js.test(s)));
  }

  // Submatch extraction, as the LogQL regexp parser stage does.
  const extract = compileRegex('level=(?P<level>\\w+).*status=(?P<status>\\d+)');
  const extractJs = /level=(?<level>\w+).*status=(?<status>\d+)/;
  bench
    .add('extract | sluice', () => {
      for (const line of lines) extract.exec(line);
    })
    .add('extract | RegExp', () => {
      for (const line of lines) extractJs.exec(line);
    });

  // An anchored PromQL matcher over label values.
  const values = lines.map((_, i) => `api-${['eu', 'us', 'ap'][i % 3]}-${i % 50}`);
  const valuesMb = utf8Bytes(values) / 1e6;
  const matcher = compileRegex('api-(eu|us)-.*', { anchored: true });
  const matcherJs = /^(?:api-(eu|us)-.*)$/;
  bench
    .add('matcher | sluice', () => void countMatches(values, (s) => matcher.test(s)))
    .add('matcher | RegExp', () => void countMatches(values, (s) => matcherJs.test(s)));

  await bench.run();

  console.log(`\n${LINES} log lines, ${mb.toFixed(2)} MB\n`);
  const table: Record<string, string | number>[] = [];
  for (const row of rows) {
    const ours = rate(bench, `${row.pattern} | sluice`, mb);
    const dfa = rate(bench, `${row.pattern} | sluice dfa`, mb);
    const js = rate(bench, `${row.pattern} | RegExp`, mb);
    table.push({
      pattern: row.pattern,
      matcher: row.strategy,
      'lines matched': row.matches,
      'sluice MB/s': Math.round(ours),
      'dfa MB/s': Math.round(dfa),
      'RegExp MB/s': Math.round(js),
      'sluice/RegExp': Number((ours / js).toFixed(2)),
      'dfa/RegExp': Number((dfa / js).toFixed(2)),
    });
  }
  const ex = rate(bench, 'extract | sluice', mb);
  const exJs = rate(bench, 'extract | RegExp', mb);
  table.push({ pattern: 'exec level=(?P<level>\\w+).*status=…', matcher: 'backtrack', 'sluice MB/s': Math.round(ex), 'RegExp MB/s': Math.round(exJs), 'sluice/RegExp': Number((ex / exJs).toFixed(2)) });
  const m = rate(bench, 'matcher | sluice', valuesMb);
  const mJs = rate(bench, 'matcher | RegExp', valuesMb);
  table.push({ pattern: '=~"api-(eu|us)-.*"', matcher: matcher.strategy, 'sluice MB/s': Math.round(m), 'RegExp MB/s': Math.round(mJs), 'sluice/RegExp': Number((m / mJs).toFixed(2)) });
  console.table(table);
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
