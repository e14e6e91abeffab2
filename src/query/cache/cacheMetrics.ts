import { Counter, Gauge, type Registry } from 'prom-client';

/** CacheSize is what the size gauges read when scraped. */
export interface CacheSize {
  readonly bytes: number;
  readonly entries: number;
}

/**
 * ResultsCacheMetrics is the results cache's telemetry in /metrics: lookups by result, steps by
 * where they came from, evaluations run and shared, pieces evicted and invalidated, and the
 * cache's size (read from the cache when scraped, so serving costs nothing extra).
 */
export class ResultsCacheMetrics {
  readonly lookups: Counter<'result'>;
  readonly steps: Counter<'source'>;
  readonly evaluations: Counter;
  readonly shared: Counter;
  readonly evictions: Counter;
  readonly invalidations: Counter;
  private size: CacheSize = { bytes: 0, entries: 0 };

  constructor(registry: Registry) {
    this.lookups = new Counter({
      name: 'sluice_results_cache_lookups_total',
      help: 'Series queries (PromQL, LogQL metric) the results cache may serve, by how it served their cacheable steps: hit (all from the cache), partial (some) or miss (none). Queries it cannot cache, or entirely too fresh, are not counted.',
      labelNames: ['result'],
      registers: [registry],
    });
    this.steps = new Counter({
      name: 'sluice_results_cache_steps_total',
      help: 'Steps of series queries answered through the results cache, by source: cache, or evaluated (too fresh to cache, not cacheable, or missing).',
      labelNames: ['source'],
      registers: [registry],
    });
    this.evaluations = new Counter({
      name: 'sluice_results_cache_evaluations_total',
      help: 'Evaluations the results cache started on the query workers (runs of steps it did not hold).',
      registers: [registry],
    });
    this.shared = new Counter({
      name: 'sluice_results_cache_shared_evaluations_total',
      help: 'Times a query joined an identical evaluation already running instead of starting its own.',
      registers: [registry],
    });
    this.evictions = new Counter({
      name: 'sluice_results_cache_evictions_total',
      help: 'Cached pieces dropped to stay within SVC_RESULTS_CACHE_BYTES.',
      registers: [registry],
    });
    this.invalidations = new Counter({
      name: 'sluice_results_cache_invalidations_total',
      help: 'Cached pieces dropped because samples or log lines were written late inside the data they were computed from.',
      registers: [registry],
    });
    const read = (): CacheSize => this.size;
    new Gauge({
      name: 'sluice_results_cache_bytes',
      help: 'Memory the results cache holds (16 bytes a point plus labels).',
      registers: [registry],
      collect() {
        this.set(read().bytes);
      },
    });
    new Gauge({
      name: 'sluice_results_cache_entries',
      help: 'Pieces the results cache holds.',
      registers: [registry],
      collect() {
        this.set(read().entries);
      },
    });
  }

  /** track makes the size gauges read `cache`. */
  track(cache: CacheSize): void {
    this.size = cache;
  }
}
