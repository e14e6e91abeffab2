/**
 * Generated log lines for the LogQL benchmarks: realistic shapes (plain text with key=value
 * pairs, logfmt, JSON) with enough variety that nothing is trivially cached, produced from a
 * seeded generator so every run measures the same bytes.
 */

const LEVELS = ['info', 'info', 'info', 'debug', 'warn', 'error'];
const METHODS = ['GET', 'GET', 'POST', 'PUT', 'DELETE'];
const PATHS = ['/api/v1/items', '/api/v1/cart', '/healthz', '/api/v1/checkout', '/login', '/api/v1/users/profile'];
const SERVICES = ['api', 'web', 'worker', 'billing'];

/** Random is a small deterministic generator (mulberry32). */
export class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  hex(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }
}

/** textLine is a plain access-log style line; `needle` is inserted when asked. */
export function textLine(r: Random, i: number, needle?: string): string {
  const level = r.pick(LEVELS);
  const extra = needle === undefined ? '' : ` ${needle}`;
  return `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00.${String(i % 1000).padStart(3, '0')}Z ${level.toUpperCase()} ${r.pick(SERVICES)} ${r.pick(METHODS)} ${r.pick(PATHS)}/${Math.floor(r.next() * 10000)} status=${r.next() < 0.9 ? 200 : 500} took=${Math.floor(r.next() * 900)}ms trace=${r.hex(16)}${extra}`;
}

/** logfmtLine is a logfmt line with quoted and bare values. */
export function logfmtLine(r: Random): string {
  return `ts=2026-01-01T00:00:00Z level=${r.pick(LEVELS)} service=${r.pick(SERVICES)} method=${r.pick(METHODS)} path=${r.pick(PATHS)} status=${r.next() < 0.9 ? 200 : 500} took=${Math.floor(r.next() * 900)}ms msg="request served in time" trace_id=${r.hex(16)}`;
}

/** jsonLine is a JSON line with a nested object. */
export function jsonLine(r: Random): string {
  return `{"ts":"2026-01-01T00:00:00Z","level":"${r.pick(LEVELS)}","service":"${r.pick(SERVICES)}","http":{"method":"${r.pick(METHODS)}","path":"${r.pick(PATHS)}","status":${r.next() < 0.9 ? 200 : 500}},"took_ms":${Math.floor(r.next() * 900)},"msg":"request served","trace_id":"${r.hex(16)}"}`;
}

/** LEVEL_NAMES are the levels lines are spread over. */
export const LEVEL_NAMES = ['debug', 'info', 'warn', 'error'];

/** fmtRate renders a rate with a unit suffix. */
export function fmtRate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(1);
}
