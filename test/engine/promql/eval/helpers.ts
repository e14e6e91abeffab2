/**
 * Helpers for evaluator tests: build a head from compact series definitions and run queries
 * against it.
 */
import { parseAndCheckPromQL } from '../../../../engine/promql/index.js';
import {
  evaluateInstant,
  evaluateRange,
  type EvalOptions,
  type InstantResult,
  type RangeResult,
  type VectorSample,
} from '../../../../engine/promql/eval/index.js';
import { MetricHead } from '../../../../engine/storage/metricHead.js';
import { staleMarkerArray } from '../../../../engine/storage/staleness.js';

/** STALE stands for a staleness marker in series definitions. */
export const STALE = Symbol('stale');

/** SeriesDef is one series: its labels and [timestampMs, value] samples. */
export interface SeriesDef {
  labels: Record<string, string>;
  samples: [number, number | typeof STALE][];
}

/** headWith loads series into a fresh head. */
export function headWith(series: SeriesDef[]): MetricHead {
  const head = new MetricHead();
  const stale = staleMarkerArray()[0];
  for (const s of series) {
    head.append({
      labels: s.labels,
      timestampsMs: Float64Array.from(s.samples.map(([t]) => t)),
      values: Float64Array.from(s.samples.map(([, v]) => (v === STALE ? stale : v))),
      stale: Uint8Array.from(s.samples.map(([, v]) => (v === STALE ? 1 : 0))),
    });
  }
  return head;
}

/** regular builds samples every `intervalMs` from time 0 with the given values. */
export function regular(intervalMs: number, values: (number | typeof STALE)[]): [number, number | typeof STALE][] {
  return values.map((v, i) => [i * intervalMs, v]);
}

export function instant(head: MetricHead, query: string, timeMs: number, options: EvalOptions = {}): InstantResult {
  return evaluateInstant(parseAndCheckPromQL(query), head, timeMs, options);
}

export function range(head: MetricHead, query: string, startMs: number, endMs: number, stepMs: number, options: EvalOptions = {}): RangeResult {
  return evaluateRange(parseAndCheckPromQL(query), head, startMs, endMs, stepMs, options);
}

/** vectorOf runs an instant query that must return a vector. */
export function vectorOf(head: MetricHead, query: string, timeMs: number, options: EvalOptions = {}): VectorSample[] {
  const result = instant(head, query, timeMs, options);
  if (result.value.type !== 'vector') throw new Error(`expected a vector, got ${result.value.type}`);
  return result.value.samples;
}

/** byLabels renders a vector as `{labels} -> value` entries, sorted, for order-free assertions. */
export function byLabels(samples: readonly VectorSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[JSON.stringify(s.labels)] = s.value;
  return out;
}

/** key renders a label set the way byLabels keys it. */
export function key(labels: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) sorted[name] = labels[name];
  return JSON.stringify(sorted);
}

/** scalarOf runs an instant query that must return a scalar. */
export function scalarOf(head: MetricHead, query: string, timeMs: number): number {
  const result = instant(head, query, timeMs);
  if (result.value.type !== 'scalar') throw new Error(`expected a scalar, got ${result.value.type}`);
  return result.value.value;
}

/** mulberry32 is a small seeded PRNG so randomized tests are reproducible. */
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
