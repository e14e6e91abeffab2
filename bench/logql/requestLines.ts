/**
 * The request log the LogQL benchmarks over stored lines read: BENCH_LINES JSON lines (default
 * 1,000,000) over six hours, 40 streams and 4 levels, each with a route, a status, a duration
 * and a trace id that no other line shares.
 */
import type { LogEntry } from '../../engine/storage/logHead.js';

export const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
export const BASE_MS = Date.UTC(2026, 0, 1);
export const SPAN_MS = 6 * 3_600_000;
export const ORG = 'bench';
const LEVELS = ['info', 'warn', 'debug', 'error'];
const ROUTES = ['/api/cart', '/api/checkout', '/api/search', '/api/user', '/health'];

/** traceIdOf is line i's trace id. */
export function traceIdOf(i: number): string {
  return (i * 2654435761).toString(16);
}

/** requestLines writes lines [from, to) of the data set: evenly spread, with a little jitter so segments overlap. */
export function requestLines(from: number, to: number): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = from; i < to; i++) {
    const ms = BASE_MS + Math.floor((i / LINES) * SPAN_MS) + ((i * 7919) % 60_000);
    const status = i % 17 === 0 ? 503 : i % 5 === 0 ? 404 : 200;
    const message = JSON.stringify({ msg: 'request done', route: ROUTES[i % 5], status, duration_ms: (i * 37) % 900, trace_id: traceIdOf(i) });
    out.push({ timestampNs: BigInt(ms) * 1_000_000n + BigInt(i % 1000), message, level: LEVELS[(i * 31) % 4], tags: { service_name: `svc${i % 40}`, env: 'bench' } });
  }
  return out;
}
