import { dataReach, logSelectionsFor, printLogQL, printPromQL, resultsCacheable, type LogQLExpr, type PromQLExpr } from '../../../engine/index.js';
import { logSeriesPlan, metricSeriesPlan, runSeriesPlan, type LogPlanDeps, type PlanDeps, type SeriesPlan } from '../plans.js';
import type { SeriesConsumer, SeriesSource } from '../seriesSource.js';
import type { QueryWindow } from '../timeRange.js';
import type { ResultsCacheMetrics } from './cacheMetrics.js';
import { cellsOf, planPieces, type PlannedPiece } from './cachePlan.js';
import { ResultsCache, type CachedPiece } from './resultsCache.js';
import { joinSeries, plainSeries, seriesBytes, sliceSeries } from './seriesPieces.js';
import { FlightTable, type FlightOutcome, type FlightReader, type FlightRun } from './singleFlight.js';

/** DEFAULT_SUBQUERY_STEP_MS is the step of a subquery written without one, as the plans use it. */
const DEFAULT_SUBQUERY_STEP_MS = 60_000;

const NS_PER_MS = 1_000_000n;

/** CacheSignal is which data a query reads: a late write of one signal leaves the other's pieces alone. */
export type CacheSignal = 'metrics' | 'logs';

/** QuerySpec is what the cache needs to know of one query, whatever its language. */
interface QuerySpec {
  signal: CacheSignal;
  /** cacheable: its steps can be evaluated apart and joined (no `@`, no window functions). */
  cacheable: boolean;
  /** canonical is the printed expression, the cache key's heart. */
  canonical: string;
  /** reach is how far before and after a step it reads data. */
  reach: { before: number; after: number; reads: boolean };
  /** lookbackMs goes into the key (it changes PromQL answers). */
  lookbackMs: number;
  planFor(window: QueryWindow): SeriesPlan;
  deps: PlanDeps;
}

/** logReach is how far a LogQL metric query reads lines around a step. */
function logReach(expr: LogQLExpr): { before: number; after: number; reads: boolean } {
  const selections = logSelectionsFor(expr, 0, 0);
  if (selections.length === 0) return { before: 0, after: 0, reads: false };
  let before = 0;
  let after = 0;
  for (const s of selections) {
    before = Math.max(before, Number(-s.minNs / NS_PER_MS) + 1);
    after = Math.max(after, Number(s.maxNs / NS_PER_MS) + 1);
  }
  return { before, after, reads: true };
}

export interface ResultsCacheSettings {
  /** budgetBytes is the memory all cached pieces may take. */
  budgetBytes: number;
  /** maxFreshnessMs: steps (and the data they read) newer than now minus this are never cached. */
  maxFreshnessMs: number;
  /** splitMs is the width of a cache cell, aligned to the Unix epoch. */
  splitMs: number;
}

/**
 * QueryResultsCache answers PromQL range queries and LogQL metric queries partly from pieces of
 * earlier answers, as Mimir's and Thanos' query front ends do: the steps are split into cells
 * of `splitMs`, each cell's piece is keyed by org, signal, canonical expression, step, step
 * phase and lookback, and only
 * the steps it lacks are evaluated, in as few evaluations as there are gaps. A dashboard that
 * refreshes every 30 s thus evaluates its newest minutes (never cached: late data still
 * arrives there) plus the 30 s that aged past the freshness limit. Identical evaluations that
 * run at the same time are run once and read by all (single flight). Answers with warnings,
 * errors or unreadable segments are not kept, and a late write drops the pieces it falls in.
 *
 * A cached answer streams exactly as a fresh one: a range result's series are sorted by labels
 * in every slice, and pieces keep that order, so events come out in the same order whatever
 * the split. Values match bit for bit where evaluation does not depend on where a window
 * started; the compensated sums of the sliding-window kernels can differ in the last bit
 * between two splits, as they already can between two slicings of a fresh query.
 */
export class QueryResultsCache {
  readonly cache: ResultsCache;
  private readonly flights: FlightTable;

  constructor(
    private readonly settings: ResultsCacheSettings,
    private readonly metrics: ResultsCacheMetrics,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new ResultsCache(settings.budgetBytes, {
      evicted: (n) => metrics.evictions.inc(n),
      invalidated: (n) => metrics.invalidations.inc(n),
    });
    this.flights = new FlightTable(Math.max(1, Math.floor(settings.budgetBytes / 2)));
    metrics.track(this.cache);
  }

  /**
   * metricsWritten is told of every metric write: samples older than the freshness limit may
   * fall inside cached pieces, which are dropped. Writes of recent samples (every regular
   * scrape) cost one comparison.
   */
  metricsWritten(org: string, minMs: number, maxMs: number): void {
    this.written('metrics', org, minMs, maxMs);
  }

  /** logsWritten is metricsWritten for log lines, whose late arrival drops LogQL pieces only. */
  logsWritten(org: string, minMs: number, maxMs: number): void {
    this.written('logs', org, minMs, maxMs);
  }

  /**
   * metadataChanged is told of every change of orgs, keys or settings: an org's retention may
   * have changed, so every piece goes (such changes are rare; a piece holding data a shorter
   * retention deleted must not come back when the retention is lengthened again).
   */
  metadataChanged(): void {
    this.cache.forgetEverything();
  }

  private written(signal: CacheSignal, org: string, minMs: number, maxMs: number): void {
    if (minMs > this.now() - this.settings.maxFreshnessMs) return;
    this.cache.lateWrite(cacheSpace(signal, org), minMs, maxMs);
  }

  /** promqlSource is the answer to a checked PromQL range query of `org`, from the cache where it can be. */
  promqlSource(deps: PlanDeps, org: string, q: string, expr: PromQLExpr, window: QueryWindow): SeriesSource {
    const cacheable = resultsCacheable(expr);
    return this.source(org, q, window, {
      signal: 'metrics',
      cacheable,
      canonical: cacheable ? printPromQL(expr) : q,
      reach: cacheable ? dataReach(expr, deps.lookbackMs, DEFAULT_SUBQUERY_STEP_MS) : { before: 0, after: 0, reads: true },
      lookbackMs: deps.lookbackMs,
      planFor: (w) => metricSeriesPlan(deps, org, q, expr, w),
      deps,
    });
  }

  /**
   * logqlSource is the answer to a checked LogQL metric query. LogQL has no `@` and no function
   * of the query window, so every metric query is cacheable; its lines are read up to its
   * ranges (and offsets) before each step.
   */
  logqlSource(deps: LogPlanDeps, org: string, q: string, expr: LogQLExpr, window: QueryWindow): SeriesSource {
    return this.source(org, q, window, {
      signal: 'logs',
      cacheable: true,
      canonical: printLogQL(expr),
      reach: logReach(expr),
      lookbackMs: 0,
      planFor: (w) => logSeriesPlan(deps, org, q, expr, w),
      deps,
    });
  }

  private source(org: string, q: string, window: QueryWindow, spec: QuerySpec): SeriesSource {
    const query = new CachedQuery(this, spec, org, q, window);
    return { run: (signal, consume) => query.run(signal, consume), failedSegments: () => query.failedSegments };
  }

  /** config is the cache's settings, for the queries it answers. */
  get config(): ResultsCacheSettings {
    return this.settings;
  }

  /** timeNow is the cache's clock. */
  timeNow(): number {
    return this.now();
  }

  /** evaluate reads the evaluation under `flightKey`, joining one already running; `done` sees its outcome if this call started it. */
  evaluate(flightKey: string, signal: AbortSignal, run: FlightRun, done: (outcome: FlightOutcome | undefined) => void): FlightReader {
    const { reader, shared } = this.flights.join(flightKey, signal, run, done);
    if (shared) this.metrics.shared.inc();
    else this.metrics.evaluations.inc();
    return reader;
  }

  /** count records how the steps of a query were served. */
  count(result: 'hit' | 'partial' | 'miss' | undefined, cachedSteps: number, evaluatedSteps: number): void {
    if (result !== undefined) this.metrics.lookups.inc({ result });
    if (cachedSteps > 0) this.metrics.steps.inc({ source: 'cache' }, cachedSteps);
    if (evaluatedSteps > 0) this.metrics.steps.inc({ source: 'evaluated' }, evaluatedSteps);
  }
}

/** cacheSpace is where an org's pieces of one signal live in the store: apart per org and per signal. */
function cacheSpace(signal: CacheSignal, org: string): string {
  return `${signal}\u0000${org}`;
}

/** CachedQuery is one query answered through the cache. */
class CachedQuery {
  failedSegments = 0;
  private readonly stepMs: number;
  private readonly firstStepMs: number;
  private readonly lastStepMs: number;
  private readonly cacheable: boolean;
  /** keyText is the cache key without the cell: expression, step, step phase and lookback. */
  private readonly keyText: string;
  private readonly reach: { before: number; after: number; reads: boolean };
  private readonly deps: PlanDeps;
  /** space is the org's part of the store for this query's signal. */
  private readonly space: string;

  constructor(
    private readonly owner: QueryResultsCache,
    private readonly spec: QuerySpec,
    private readonly org: string,
    q: string,
    private readonly window: QueryWindow,
  ) {
    this.stepMs = window.stepMs;
    this.firstStepMs = window.startMs;
    this.lastStepMs = window.startMs + (window.points - 1) * window.stepMs;
    // An instant query keeps its own order (sort(), topk()), which joined pieces would not.
    this.cacheable = spec.cacheable && !window.instant && Number.isInteger(window.startMs) && Number.isInteger(window.stepMs) && window.stepMs > 0;
    const phase = ((window.startMs % window.stepMs) + window.stepMs) % window.stepMs;
    this.keyText = JSON.stringify([this.cacheable ? spec.canonical : q, window.stepMs, phase, spec.lookbackMs]);
    this.reach = spec.reach;
    this.deps = spec.deps;
    this.space = cacheSpace(spec.signal, org);
  }

  async run(signal: AbortSignal, consume: SeriesConsumer): Promise<void> {
    const pieces = this.plan();
    // Every evaluation starts now, so the newest steps are being computed while cached ones stream.
    const readers = new Map<PlannedPiece, FlightReader>();
    try {
      for (const piece of pieces) if (piece.kind === 'evaluate') readers.set(piece, this.evaluate(piece, signal));
      for (const piece of pieces) {
        const reader = readers.get(piece);
        if (piece.kind === 'cached') await this.serveCached(piece, signal, consume);
        else if (reader !== undefined) await this.serveEvaluated(reader, consume);
      }
    } finally {
      for (const reader of readers.values()) reader.close();
    }
  }

  /** cellKey names a cell's piece of this query in the cache. */
  private cellKey(cell: number): string {
    return `${this.keyText}\u0000${cell}`;
  }

  /** cacheableRange is the steps that may be cached now: old enough, and reading no data retention clips. */
  private cacheableRange(): { firstMs: number; lastMs: number } {
    if (!this.cacheable) return { firstMs: Infinity, lastMs: -Infinity };
    const lastMs = this.owner.timeNow() - this.owner.config.maxFreshnessMs - Math.max(0, this.reach.after);
    const firstMs = this.deps.oldestMs === undefined ? -Infinity : this.deps.oldestMs + this.reach.before;
    return { firstMs, lastMs };
  }

  private plan(): PlannedPiece[] {
    const range = this.cacheableRange();
    const { splitMs } = this.owner.config;
    const pieces = planPieces({
      firstStepMs: this.firstStepMs,
      lastStepMs: this.lastStepMs,
      stepMs: this.stepMs,
      splitMs,
      firstCacheableMs: range.firstMs,
      lastCacheableMs: range.lastMs,
      cached: (cell) => this.owner.cache.get(this.space, this.cellKey(cell)),
    });
    let cachedSteps = 0;
    let evaluatedSteps = 0;
    for (const piece of pieces) {
      const steps = (piece.toMs - piece.fromMs) / this.stepMs + 1;
      if (piece.kind === 'cached') cachedSteps += steps;
      else evaluatedSteps += steps;
    }
    const result = !this.cacheable || range.lastMs < this.firstStepMs ? undefined : cachedSteps === 0 ? 'miss' : evaluatedSteps === 0 ? 'hit' : 'partial';
    this.owner.count(result, cachedSteps, evaluatedSteps);
    return pieces;
  }

  private async serveCached(piece: PlannedPiece & { kind: 'cached' }, signal: AbortSignal, consume: SeriesConsumer): Promise<void> {
    const held = this.owner.cache.get(this.space, this.cellKey(piece.cell));
    // The plan found the piece; a late write may have dropped it since, and then it is evaluated now.
    if (held === undefined || held.fromMs > piece.fromMs || held.toMs < piece.toMs) {
      const reader = this.evaluate(piece, signal);
      try {
        await this.serveEvaluated(reader, consume);
      } finally {
        reader.close();
      }
      return;
    }
    const series = sliceSeries(held.series, piece.fromMs, piece.toMs);
    await consume(series, seriesBytes(series), []);
  }

  private async serveEvaluated(reader: FlightReader, consume: SeriesConsumer): Promise<void> {
    for (;;) {
      const slice = await reader.next();
      if (slice === undefined) break;
      await consume(slice.series, slice.bytes, slice.annotations);
      reader.taken();
    }
    this.failedSegments += reader.failedSegments();
  }

  /** evaluate starts (or joins) the evaluation of a run of steps; when this query started it, the cacheable part is kept. */
  private evaluate(piece: { fromMs: number; toMs: number }, signal: AbortSignal): FlightReader {
    // A query the cache cannot split is evaluated over its own window (end() reads the exact end).
    const window: QueryWindow = this.cacheable
      ? { startMs: piece.fromMs, endMs: piece.toMs, stepMs: this.stepMs, points: (piece.toMs - piece.fromMs) / this.stepMs + 1, instant: false }
      : this.window;
    // The retention clip is left out of the key: a query joining an evaluation gets the answer as
    // of the moment it started, which is what evaluating once means.
    const flightKey = JSON.stringify([this.spec.signal, this.org, this.keyText, window.startMs, window.endMs]);
    const epoch = this.owner.cache.epoch(this.space);
    const range = this.cacheableRange();
    return this.owner.evaluate(
      flightKey,
      signal,
      async (flightSignal, publish) => {
        const plan = this.spec.planFor(window);
        await runSeriesPlan(this.deps.pool, plan, flightSignal, (series, bytes, annotations) => publish({ series, bytes, annotations }));
        return plan.failedSegments();
      },
      (outcome) => {
        if (outcome !== undefined) this.keep(outcome, piece, range, epoch);
      },
    );
  }

  /**
   * keep stores the cacheable steps of a finished evaluation, cell by cell, each merged with the
   * cell's piece when the two meet or overlap (else the newer steps replace it).
   */
  private keep(outcome: FlightOutcome, piece: { fromMs: number; toMs: number }, range: { firstMs: number; lastMs: number }, epoch: number): void {
    if (!this.cacheable || outcome.failedSegments > 0 || outcome.results.some((r) => r.annotations.length > 0 || !plainSeries(r.series))) return;
    const fromMs = Math.max(piece.fromMs, this.firstStepAtOrAfter(range.firstMs));
    const toMs = Math.min(piece.toMs, this.lastStepAtOrBefore(range.lastMs));
    if (fromMs > toMs) return;
    const answer = outcome.results.map((r) => r.series);
    for (const cell of cellsOf(fromMs, toMs, this.stepMs, this.owner.config.splitMs)) {
      const key = this.cellKey(cell.cell);
      const fresh = joinSeries(answer.map((series) => sliceSeries(series, cell.fromMs, cell.toMs)));
      const held = this.owner.cache.get(this.space, key);
      let merged: { fromMs: number; toMs: number; series: CachedPiece['series'] } = { fromMs: cell.fromMs, toMs: cell.toMs, series: fresh };
      if (held !== undefined && held.toMs + this.stepMs >= cell.fromMs && cell.toMs + this.stepMs >= held.fromMs) {
        merged = {
          fromMs: Math.min(held.fromMs, cell.fromMs),
          toMs: Math.max(held.toMs, cell.toMs),
          series: joinSeries([sliceSeries(held.series, held.fromMs, cell.fromMs - this.stepMs), fresh, sliceSeries(held.series, cell.toMs + this.stepMs, held.toMs)]),
        };
      } else if (held !== undefined && held.toMs > cell.toMs) {
        continue;
      }
      this.owner.cache.put(
        this.space,
        key,
        {
          ...merged,
          bytes: seriesBytes(merged.series),
          dataFromMs: this.reach.reads ? merged.fromMs - this.reach.before : Infinity,
          dataToMs: this.reach.reads ? merged.toMs + this.reach.after : -Infinity,
        },
        epoch,
      );
    }
  }

  private firstStepAtOrAfter(t: number): number {
    if (t === -Infinity) return -Infinity;
    return this.firstStepMs + Math.ceil((t - this.firstStepMs) / this.stepMs) * this.stepMs;
  }

  private lastStepAtOrBefore(t: number): number {
    return this.firstStepMs + Math.floor((t - this.firstStepMs) / this.stepMs) * this.stepMs;
  }
}
