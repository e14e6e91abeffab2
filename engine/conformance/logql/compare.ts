/**
 * Comparing an evaluation result with a script's expectation, with the upstream harness's
 * rules: series compare as sets by their label string unless `expect ordered`, floats within
 * 1e-9 absolute or relative, NaN equal to NaN, `_` meaning no point at that step.
 */
import { formatLabelSet, sortedLabels } from '../../logql/eval/labelSet.js';
import type { InstantResult, RangeResult } from '../../logql/eval/types.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';
import type { EvalCommand } from './script.js';
import { EPOCH_MS } from './script.js';

/** EPSILON is the comparison tolerance. */
export const EPSILON = 1e-9;

/** floatsEqual compares two values with the harness's tolerance. */
export function floatsEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  const diff = Math.abs(a - b);
  if (diff <= EPSILON) return true;
  return diff / Math.max(Math.abs(a), Math.abs(b)) <= EPSILON;
}

function key(labels: Readonly<Record<string, string>>): string {
  return formatLabelSet(sortedLabels(labels));
}

function describe(series: readonly SeriesColumns[]): string {
  return series.map((s) => `${key(s.labels)} ${[...s.values].join(' ')}`).join('; ') || '(none)';
}

/** compareResult returns undefined when `result` meets the expectation, else why not. */
export function compareResult(cmd: EvalCommand, result: InstantResult | RangeResult): string | undefined {
  const expect = cmd.expect;
  if (result.resultType === 'scalar') {
    if (expect.scalar === undefined) return `expected ${expect.empty ? 'an empty result' : 'series'}, got scalar ${result.value}`;
    return floatsEqual(expect.scalar, result.value) ? undefined : `scalar mismatch: want ${expect.scalar}, got ${result.value}`;
  }
  if (expect.empty) return result.series.length === 0 ? undefined : `expected an empty result, got ${describe(result.series)}`;
  if (expect.scalar !== undefined) return `expected a scalar, got ${result.resultType}`;
  if (result.resultType === 'vector') {
    const wantTs = EPOCH_MS + Number(cmd.startNs / 1_000_000n);
    for (const s of result.series) {
      if (s.timestampsMs.length !== 1 || s.timestampsMs[0] !== wantTs) return `series ${key(s.labels)} has points at unexpected times`;
    }
    if (expect.ordered) {
      if (result.series.length !== expect.series.length) return `series count mismatch: want ${expect.series.length}, got ${describe(result.series)}`;
      for (let i = 0; i < expect.series.length; i++) {
        const want = expect.series[i];
        const got = result.series[i];
        if (key(want.labels) !== key(got.labels)) return `series at position ${i}: want ${key(want.labels)}, got ${key(got.labels)}`;
        if (!floatsEqual(want.values[0] ?? NaN, got.values[0])) return `series ${key(want.labels)} value mismatch: want ${want.values[0]}, got ${got.values[0]}`;
      }
      return undefined;
    }
    const got = new Map(result.series.map((s) => [key(s.labels), s.values[0]]));
    if (got.size !== expect.series.length) return `series count mismatch: want ${expect.series.length}, got ${describe(result.series)}`;
    for (const want of expect.series) {
      const k = key(want.labels);
      const value = got.get(k);
      if (value === undefined) return `missing expected series ${k}; got ${describe(result.series)}`;
      if (want.values.length !== 1 || want.values[0] === undefined) return `instant expectation for ${k} must be one value`;
      if (!floatsEqual(want.values[0], value)) return `series ${k} value mismatch: want ${want.values[0]}, got ${value}`;
    }
    return undefined;
  }
  const steps: number[] = [];
  const stepMs = Number(cmd.stepNs) / 1e6;
  const startMs = EPOCH_MS + Number(cmd.startNs) / 1e6;
  const endMs = EPOCH_MS + Number(cmd.endNs) / 1e6;
  for (let t = startMs; t <= endMs; t += stepMs) steps.push(t);
  const got = new Map(result.series.map((s) => [key(s.labels), s]));
  if (got.size !== expect.series.length) return `series count mismatch: want ${expect.series.length}, got ${describe(result.series)}`;
  for (const want of expect.series) {
    const k = key(want.labels);
    const s = got.get(k);
    if (s === undefined) return `missing expected series ${k}; got ${describe(result.series)}`;
    if (want.values.length !== steps.length) return `series ${k} has ${want.values.length} points, expected ${steps.length} steps`;
    const byTime = new Map<number, number>();
    for (let i = 0; i < s.timestampsMs.length; i++) byTime.set(s.timestampsMs[i], s.values[i]);
    for (const t of byTime.keys()) if (!steps.includes(t)) return `series ${k} has a point at unexpected time ${t}`;
    for (let i = 0; i < steps.length; i++) {
      const w = want.values[i];
      const g = byTime.get(steps[i]);
      if (w === undefined) {
        if (g !== undefined) return `series ${k} step ${i} should be empty, got ${g}`;
        continue;
      }
      if (g === undefined) return `series ${k} missing point at step ${i}`;
      if (!floatsEqual(w, g)) return `series ${k} step ${i} value mismatch: want ${w}, got ${g}`;
    }
  }
  return undefined;
}
