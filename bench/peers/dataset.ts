import { mulberry32 } from '../../src/gen/model.js';
import type { Scale } from './scales.js';

/**
 * The deterministic dataset every system is loaded with. Values depend only on the seed and
 * the step number, never on the clock, so two runs at the same scale hold the same numbers
 * (only the end time moves with the day the run starts). Counters grow by whole numbers and
 * histogram buckets count whole observations, so every system stores the exact same floats
 * and query answers can be compared to 1e-6.
 */
export const SCRAPE_INTERVAL_S = 15;
export const COUNTER_NAME = 'bench_requests_total';
export const HISTOGRAM_NAME = 'bench_request_duration_seconds_bucket';
export const METRIC_NAME_PATTERN = 'bench_.+';

const ROUTES = ['/r0', '/r1', '/r2', '/r3', '/r4'];
const CODES = ['200', '404', '500', '503'];
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'];
const SERVICES = ['api', 'auth', 'billing', 'cart', 'catalog', 'checkout', 'payments', 'search', 'shipping', 'users'];
const LEVELS = ['info', 'info', 'info', 'info', 'debug', 'warn', 'error'];
const MESSAGES = ['request handled', 'cache miss', 'upstream timeout', 'retrying payment', 'slow query detected', 'user signed in'];
/** Every 50th counter resets to zero halfway, so rate()'s reset handling is part of what is compared. */
const RESET_EVERY = 50;

export interface SeriesLabels {
  /** Labels including `__name__`. */
  labels: Record<string, string>;
}

export interface Step {
  timestampMs: number;
  /** One value per series, in the order of `Dataset.series`. */
  values: Float64Array;
}

export interface LogLine {
  timestampNs: bigint;
  /** Stream labels. */
  stream: Record<string, string>;
  line: string;
}

export interface DatasetSummary {
  scale: string;
  seed: number;
  startMs: number;
  endMs: number;
  scrapeIntervalS: number;
  series: number;
  counterSeries: number;
  histogramSeries: number;
  steps: number;
  samples: number;
  logLines: number;
}

export class Dataset {
  readonly series: SeriesLabels[] = [];
  readonly startMs: number;
  readonly steps: number;

  constructor(
    readonly scale: Scale,
    readonly endMs: number,
    readonly seed = 14,
  ) {
    this.steps = (scale.hours * 3600) / SCRAPE_INTERVAL_S + 1;
    this.startMs = endMs - (this.steps - 1) * SCRAPE_INTERVAL_S * 1000;
    for (let i = 0; i < scale.counterSeries; i++) {
      const combo = ROUTES.length * CODES.length;
      this.series.push({
        labels: {
          __name__: COUNTER_NAME,
          instance: instanceName(Math.floor(i / combo)),
          route: ROUTES[Math.floor(i / CODES.length) % ROUTES.length],
          code: CODES[i % CODES.length],
        },
      });
    }
    for (let i = 0; i < scale.histogramSeries; i++) {
      const pair = Math.floor(i / BUCKETS.length);
      this.series.push({
        labels: {
          __name__: HISTOGRAM_NAME,
          instance: instanceName(Math.floor(pair / ROUTES.length)),
          route: ROUTES[pair % ROUTES.length],
          le: BUCKETS[i % BUCKETS.length],
        },
      });
    }
  }

  get sampleCount(): number {
    return this.series.length * this.steps;
  }

  summary(): DatasetSummary {
    return {
      scale: this.scale.name,
      seed: this.seed,
      startMs: this.startMs,
      endMs: this.endMs,
      scrapeIntervalS: SCRAPE_INTERVAL_S,
      series: this.series.length,
      counterSeries: this.scale.counterSeries,
      histogramSeries: this.scale.histogramSeries,
      steps: this.steps,
      samples: this.sampleCount,
      logLines: this.scale.logLines,
    };
  }

  /** samples yields every scrape in time order; the same array is reused between steps. */
  *samples(): Generator<Step> {
    const rand = mulberry32(this.seed);
    const counters = this.scale.counterSeries;
    const values = new Float64Array(this.series.length);
    const half = Math.floor(this.steps / 2);
    const bucketIncrements = new Float64Array(BUCKETS.length);
    // Counters start far from zero, as those of a long-running process do. A counter that
    // starts near zero makes rate() extrapolate towards its zero point at the start of the
    // series, where Prometheus 2.x and 3.x differ; far from zero both extrapolate alike.
    for (let i = 0; i < counters; i++) values[i] = 1_000_000 + i * 1_000;
    // Whole-number increments let two instances' summed rates tie exactly, and topk orders ties
    // as it likes: each instance's series also grow by a share of an irrational step that differs
    // per instance, so no two instance sums can ever be equal and topk answers compare exactly.
    const combo = ROUTES.length * CODES.length;
    const tieBreak = new Float64Array(counters);
    for (let i = 0; i < counters; i++) tieBreak[i] = (Math.SQRT2 * 1e-3 * (Math.floor(i / combo) + 1) ** 2) / combo;
    for (let h = counters; h < values.length; h++) values[h] = 100_000 * (1 + ((h - counters) % BUCKETS.length));
    for (let step = 0; step < this.steps; step++) {
      for (let i = 0; i < counters; i++) {
        const base = 1 + (i % 7) * 3;
        if (i % RESET_EVERY === 0 && step === half) values[i] = 0;
        else values[i] += Math.floor(rand() * base * 4) + tieBreak[i];
      }
      for (let h = counters; h < values.length; h += BUCKETS.length) {
        bucketIncrements.fill(0);
        const observations = Math.floor(rand() * 12);
        for (let o = 0; o < observations; o++) {
          // A skewed draw: most requests are fast, a few land in the slow buckets.
          const r = rand();
          bucketIncrements[Math.min(BUCKETS.length - 1, Math.floor(r * r * r * BUCKETS.length))]++;
        }
        let cumulative = 0;
        for (let b = 0; b < BUCKETS.length && h + b < values.length; b++) {
          cumulative += bucketIncrements[b];
          values[h + b] += cumulative;
        }
      }
      yield { timestampMs: this.startMs + step * SCRAPE_INTERVAL_S * 1000, values };
    }
  }

  /** logs yields every log line in time order, spread evenly over the span. */
  *logs(): Generator<LogLine> {
    const rand = mulberry32(this.seed + 1);
    const total = this.scale.logLines;
    const spanNs = BigInt(this.endMs - this.startMs) * 1_000_000n;
    const startNs = BigInt(this.startMs) * 1_000_000n;
    for (let i = 0; i < total; i++) {
      const service = SERVICES[Math.floor(rand() * SERVICES.length)];
      const level = LEVELS[Math.floor(rand() * LEVELS.length)];
      const route = ROUTES[Math.floor(rand() * ROUTES.length)];
      const status = level === 'error' ? 500 + Math.floor(rand() * 4) : 200;
      const latencyMs = Math.floor(rand() * rand() * 2000);
      const message = MESSAGES[Math.floor(rand() * MESSAGES.length)];
      const trace = Math.floor(rand() * 0xffffffff).toString(16).padStart(8, '0');
      yield {
        timestampNs: startNs + (spanNs * BigInt(i)) / BigInt(total),
        stream: { service_name: service, env: 'bench', level },
        line: `{"level":"${level}","route":"${route}","status":${status},"latency_ms":${latencyMs},"msg":"${message}","trace_id":"${trace}"}`,
      };
    }
  }
}

/**
 * datasetEndMs puts the last sample 8 s before the last whole minute, so samples sit 7 s off
 * every query's evaluation grid (multiples of 15 s). Prometheus 2.x selects ranges closed at
 * the left ([t-5m, t]) and Sluice, like Prometheus 3, open ([t-5m, t)); with no sample on a
 * window's edge both select the same samples and their answers can be compared exactly.
 */
export function datasetEndMs(nowMs: number): number {
  return Math.floor(nowMs / 60_000) * 60_000 - 8_000;
}

function instanceName(index: number): string {
  return `i-${String(index).padStart(4, '0')}`;
}

/** exposition renders a series as the text formats write it: its name, then its other labels in braces. */
export function exposition(labels: Record<string, string>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(labels)) {
    if (name !== '__name__') parts.push(`${name}="${value}"`);
  }
  return `${labels.__name__}{${parts.join(',')}}`;
}
