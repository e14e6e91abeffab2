/**
 * The demo world: a small shop whose services call each other. Everything is derived from a
 * seeded generator and the timestamp, so the same seed and span always produce the same data
 * (tests and benchmarks can rely on it), while live mode still looks alive.
 */

/** mulberry32 is a tiny, fast, seedable PRNG; quality is plenty for synthetic telemetry. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type LogStyle = 'plain' | 'logfmt' | 'json';

export interface ServiceSpec {
  name: string;
  namespace: string;
  routes: string[];
  /** baseRps is the request rate at quiet times. */
  baseRps: number;
  /** latencyMs is the median latency; the tail is log-normal. */
  latencyMs: number;
  errorRate: number;
  logStyle: LogStyle;
  calls: string[];
}

export const SERVICES: readonly ServiceSpec[] = [
  { name: 'frontend', namespace: 'shop', routes: ['/', '/cart', '/product/:id', '/checkout'], baseRps: 40, latencyMs: 35, errorRate: 0.004, logStyle: 'plain', calls: ['checkout', 'catalog'] },
  { name: 'checkout', namespace: 'shop', routes: ['/api/checkout', '/api/cart'], baseRps: 12, latencyMs: 80, errorRate: 0.01, logStyle: 'json', calls: ['payments', 'inventory'] },
  { name: 'payments', namespace: 'shop', routes: ['/charge', '/refund'], baseRps: 6, latencyMs: 120, errorRate: 0.008, logStyle: 'logfmt', calls: [] },
  { name: 'inventory', namespace: 'shop', routes: ['/stock', '/reserve'], baseRps: 9, latencyMs: 15, errorRate: 0.002, logStyle: 'json', calls: [] },
  { name: 'catalog', namespace: 'shop', routes: ['/products', '/search'], baseRps: 25, latencyMs: 22, errorRate: 0.001, logStyle: 'logfmt', calls: [] },
];

export const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
export const INSTANCES = ['0', '1'];

/**
 * incidentFactor makes payments misbehave for three minutes in every twenty (deterministic
 * in wall time), so error bursts and latency spikes show up in any window of half an hour.
 */
export function incidentFactor(service: string, timeMs: number): { errors: number; latency: number } {
  if (service !== 'payments' && service !== 'checkout') return { errors: 1, latency: 1 };
  const minute = Math.floor(timeMs / 60_000) % 20;
  if (minute >= 3) return { errors: 1, latency: 1 };
  return service === 'payments' ? { errors: 25, latency: 6 } : { errors: 8, latency: 2 };
}

/** dailyShape gives the traffic a day-night curve and a little noise. */
export function trafficFactor(timeMs: number, rand: () => number): number {
  const hour = (timeMs / 3_600_000) % 24;
  return (0.6 + 0.4 * Math.sin(((hour - 8) / 24) * 2 * Math.PI)) * (0.9 + 0.2 * rand());
}

export interface RequestEvent {
  service: ServiceSpec;
  instance: string;
  route: string;
  status: number;
  durationMs: number;
  timeNs: bigint;
  traceId: string;
}

/** sampleLatency draws a log-normal latency around the median. */
export function sampleLatency(medianMs: number, rand: () => number): number {
  const u1 = Math.max(rand(), 1e-12);
  const u2 = rand();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return medianMs * Math.exp(0.6 * z);
}

const ERROR_TEXT: Record<string, string[]> = {
  payments: ['card declined by issuer', 'upstream gateway timeout after 3000ms', 'idempotency key conflict'],
  checkout: ['payment service unavailable', 'cart not found', 'failed to reserve stock'],
  inventory: ['stock row locked, retrying', 'deadlock detected'],
  frontend: ['template render failed', 'session expired'],
  catalog: ['search index stale', 'cache miss storm'],
};

/**
 * renderLog writes one request as a log line in the service's style, with the level and any
 * error text, as real services of each style would.
 */
export function renderLog(e: RequestEvent, rand: () => number): { level: string; line: string } {
  const level = e.status >= 500 ? 'error' : e.status >= 400 || e.durationMs > 1000 ? 'warn' : rand() < 0.1 ? 'debug' : 'info';
  const errors = ERROR_TEXT[e.service.name] ?? ['unexpected failure'];
  const err = e.status >= 500 ? errors[Math.floor(rand() * errors.length)] : undefined;
  const duration = Math.round(e.durationMs * 10) / 10;
  switch (e.service.logStyle) {
    case 'plain':
      return { level, line: `${level.toUpperCase()} ${e.route} ${e.status} ${duration}ms trace=${e.traceId}${err ? ` error="${err}"` : ''}` };
    case 'logfmt':
      return {
        level,
        line: `level=${level} msg="${err ? 'request failed' : 'request served'}" route=${e.route} status=${e.status} duration=${duration}ms trace_id=${e.traceId}${err ? ` error="${err}"` : ''}`,
      };
    case 'json':
      return {
        level,
        line: JSON.stringify({ level, msg: err ? 'request failed' : 'request served', route: e.route, status: e.status, duration_ms: duration, trace_id: e.traceId, ...(err ? { error: err } : {}) }),
      };
  }
}
