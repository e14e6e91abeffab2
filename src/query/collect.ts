import { MemoryBudget, rowBytes, seriesKeyOf, withColumns, type FloatHistogram, type LogQLExpr, type PromQLExpr, type RawRow, type SeriesColumns, type ByteText } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import { runRawLogs, type LogPlanDeps, type RawLogOptions } from './plans.js';
import { logSeriesSource, metricSeriesSource, type ResultsCacheDeps } from './metricSource.js';
import type { SeriesSource } from './seriesSource.js';
import { orgPlanDeps, type QueryLimitsFor } from './orgQueryLimits.js';
import type { OrgGate } from './stream.js';
import type { QueryWindow } from './timeRange.js';
import { armDeadline } from './deadline.js';

/**
 * In-process queries for side handlers (the tool gateway): the same plans the SSE endpoints
 * stream, collected into whole results, under the same per-org concurrency gate and a
 * deadline. Results are bounded: a series query stops once it holds more than `maxSeries`
 * series, a raw query at its `limit`, and both fail once what they hold passes the query memory
 * budget (SVC_QUERY_MEMORY_BYTES), as a streamed query does when its client falls behind: a
 * collected result is all held at once, so a few thousand long lines could otherwise take
 * gigabytes.
 */

/** SERIES_OVERHEAD_BYTES stands for a kept series' objects in byte estimates; points cost 16 bytes each. */
const SERIES_OVERHEAD_BYTES = 128;

export interface CollectDeps extends LogPlanDeps, ResultsCacheDeps {
  gate: OrgGate;
  /** queryLimitsFor gives the limits of the org a query runs for: concurrency, budgets, deadline, retention. */
  queryLimitsFor: QueryLimitsFor;
}

export interface CollectedSeries {
  series: SeriesColumns[];
  /** failedSegments counts stored segments that could not be read: the answer is partial when above 0. */
  failedSegments: number;
  /** annotations are the evaluator's distinct warnings and infos, in Prometheus' wording. */
  annotations: string[];
}

export interface CollectedRows {
  rows: RawRow[];
  failedSegments: number;
}

/**
 * SeriesJoiner appends each slice's part of a series to that series' earlier parts, in order.
 * The first slice's series are kept as they came and keyed only when a second slice arrives:
 * within one slice every series is distinct, so an answer of one slice (every instant query)
 * is never keyed (for 10,000 series that was 7 ms of formatting label keys on the thread that
 * answers every query, before series came with their keys).
 */
export class SeriesJoiner {
  private readonly byKey = new Map<string, { parts: SeriesColumns[]; points: number }>();
  private first: readonly SeriesColumns[] | undefined;

  constructor(
    private readonly maxSeries: number,
    private readonly memory: MemoryBudget,
  ) {}

  add(series: readonly SeriesColumns[]): void {
    if (this.first === undefined && this.byKey.size === 0) {
      if (series.length > this.maxSeries) this.tooMany();
      for (const s of series) this.memory.charge(SERIES_OVERHEAD_BYTES + s.timestampsMs.length * 16, 'series collected for the answer');
      this.first = series;
      return;
    }
    if (this.first !== undefined) {
      const first = this.first;
      this.first = undefined;
      this.index(first, true);
    }
    this.index(series, false);
  }

  /** index files series under their label keys; `charged` says their points were charged already (only the keys are then). */
  private index(series: readonly SeriesColumns[], charged: boolean): void {
    for (const s of series) {
      const key = seriesKeyOf(s);
      this.memory.charge(charged ? key.length : SERIES_OVERHEAD_BYTES + key.length + s.timestampsMs.length * 16, 'series collected for the answer');
      let entry = this.byKey.get(key);
      if (!entry) {
        if (this.byKey.size >= this.maxSeries) this.tooMany();
        this.byKey.set(key, (entry = { parts: [], points: 0 }));
      }
      entry.parts.push(s);
      entry.points += s.timestampsMs.length;
    }
  }

  private tooMany(): never {
    throw new ApiError('VALIDATION_FAILED', `the query yields more than ${this.maxSeries} series; aggregate it (sum by (...)) or add label matchers`);
  }

  result(): SeriesColumns[] {
    if (this.first !== undefined) return [...this.first];
    const out: SeriesColumns[] = [];
    for (const { parts, points } of this.byKey.values()) {
      if (parts.length === 1) {
        out.push(parts[0]);
        continue;
      }
      const timestampsMs = new Float64Array(points);
      const values = new Float64Array(points);
      const anyHistograms = parts.some((p) => p.histograms !== undefined);
      const histograms = anyHistograms ? new Array<FloatHistogram | undefined>(points).fill(undefined) : undefined;
      let at = 0;
      for (const part of parts) {
        timestampsMs.set(part.timestampsMs, at);
        values.set(part.values, at);
        if (histograms !== undefined && part.histograms !== undefined) for (let i = 0; i < part.histograms.length; i++) histograms[at + i] = part.histograms[i];
        at += part.timestampsMs.length;
      }
      const joined = withColumns(parts[0], timestampsMs, values, histograms);
      joined.labelsText = parts[0].labelsText;
      if (parts.every((p) => p.sampleText !== undefined)) joined.sampleText = joinText(parts.map((p) => p.sampleText!));
      out.push(joined);
    }
    return out;
  }
}

/** joinText joins the text of consecutive parts of a series into one ByteText over all their points. */
function joinText(parts: readonly ByteText[]): ByteText {
  let points = 0;
  let length = 0;
  for (const part of parts) {
    points += part.at.length - 1;
    length += part.at[part.at.length - 1] - part.at[0];
  }
  const at = new Uint32Array(points + 1);
  const bytes = new Uint8Array(length);
  let written = 0;
  let g = 0;
  for (const part of parts) {
    const from = part.at[0];
    const to = part.at[part.at.length - 1];
    const shift = written - from;
    for (let i = 0; i + 1 < part.at.length; i++) at[g++] = part.at[i] + shift;
    bytes.set(part.bytes.subarray(from, to), written);
    written += to - from;
  }
  at[points] = written;
  return { bytes, at };
}

/** QueryCollector runs checked queries for one org and returns their whole results. */
export class QueryCollector {
  constructor(private readonly deps: CollectDeps) {}

  /**
   * promql runs a checked PromQL query (as an instant query when the window says so); `maxSeries`
   * bounds what it may hold. `sampleText` asks the workers for the Prometheus API's rendering of
   * every point (SeriesColumns.sampleText), for a caller that writes it.
   */
  promql(org: string, q: string, expr: PromQLExpr, window: QueryWindow, maxSeries: number, signal: AbortSignal, options: { sampleText?: boolean } = {}): Promise<CollectedSeries> {
    return this.collectSeries(org, (deps) => metricSeriesSource({ ...orgPlanDeps(deps, this.deps.queryLimitsFor(org), 'metrics'), sampleText: options.sampleText }, org, q, expr, window), maxSeries, signal);
  }

  /** logqlSeries runs a checked LogQL metric query (as an instant query when the window says so). */
  logqlSeries(org: string, q: string, expr: LogQLExpr, window: QueryWindow, maxSeries: number, signal: AbortSignal): Promise<CollectedSeries> {
    return this.collectSeries(org, (deps) => logSeriesSource(orgPlanDeps(deps, this.deps.queryLimitsFor(org), 'logs'), org, q, expr, window), maxSeries, signal);
  }

  /** logqlRows runs a checked LogQL log query and returns at most `options.limit` rows in output order. */
  async logqlRows(org: string, q: string, expr: LogQLExpr, window: QueryWindow, options: RawLogOptions, signal: AbortSignal): Promise<CollectedRows> {
    return this.withSlot(org, signal, async (bounded) => {
      const rows: RawRow[] = [];
      const deps = orgPlanDeps(this.deps, this.deps.queryLimitsFor(org), 'logs');
      const memory = new MemoryBudget(deps.memoryBytes);
      const { failedSegments } = await runRawLogs(deps, org, q, expr, window, options, bounded, (part) => {
        for (const row of part) {
          memory.charge(rowBytes(row), 'log lines collected for the answer');
          rows.push(row);
        }
      });
      return { rows, failedSegments };
    });
  }

  private collectSeries(org: string, plan: (deps: CollectDeps) => SeriesSource, maxSeries: number, signal: AbortSignal): Promise<CollectedSeries> {
    return this.withSlot(org, signal, async (bounded) => {
      const planned = plan(this.deps);
      const joiner = new SeriesJoiner(maxSeries, new MemoryBudget(this.deps.queryLimitsFor(org).memoryBytes));
      const annotations = new Set<string>();
      await planned.run(bounded, (series, _bytes, notes) => {
        joiner.add(series);
        for (const note of notes) annotations.add(note);
      });
      return { series: joiner.result(), failedSegments: planned.failedSegments(), annotations: [...annotations] };
    });
  }

  /**
   * withSlot takes one of the org's query slots for the duration of `run` and bounds it by the
   * query deadline as well as the caller's signal; a deadline is reported as DEADLINE_EXCEEDED.
   */
  private async withSlot<T>(org: string, signal: AbortSignal, run: (bounded: AbortSignal) => Promise<T>): Promise<T> {
    const limits = this.deps.queryLimitsFor(org);
    const release = await this.deps.gate.acquire(org, limits, signal);
    const deadline = new AbortController();
    const timer = armDeadline(limits.timeoutMs, () =>
      deadline.abort(new ApiError('DEADLINE_EXCEEDED', `query exceeded the deadline of ${limits.timeoutMs} ms (${limits.originOf('timeoutMs')}); narrow the window or the selector`)),
    );
    const bounded = AbortSignal.any([signal, deadline.signal]);
    try {
      return await run(bounded);
    } catch (err) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      // Whatever is still running for this query (the other slices) stops now.
      deadline.abort(new Error('query ended'));
      release();
    }
  }
}
