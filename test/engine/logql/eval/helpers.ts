/**
 * Helpers for the evaluator tests: run one line through a query's pipeline, build a LogHead
 * from short descriptions, and evaluate metric queries at times given as offsets.
 */
import { checkLogQL, parseLogQL } from '../../../../engine/logql/index.js';
import type { Expr, LogSelectorExpr } from '../../../../engine/logql/index.js';
import { CompiledPipeline, LabelCache, evaluateLogQLInstant, evaluateLogQLRange } from '../../../../engine/logql/eval/index.js';
import type { EvalOptions, InstantResult, RangeResult } from '../../../../engine/logql/eval/index.js';
import { LogHead } from '../../../../engine/storage/logHead.js';

/** BASE_MS is the time test data starts from. */
export const BASE_MS = Date.UTC(2026, 0, 1);

/** parseChecked parses and checks a query. */
export function parseChecked(query: string, rangeQuery = false): Expr {
  const expr = parseLogQL(query);
  checkLogQL(expr, query, { rangeQuery });
  return expr;
}

/** PipelineOutcome is a line after a pipeline: dropped (null) or its line and labels. */
export type PipelineOutcome = { line: string; labels: Record<string, string> } | null;

/**
 * runPipeline runs `line` through the pipeline of `stages` (written after a selector, e.g.
 * `| json | level="error"`) for a stream with `tags`.
 */
export function runPipeline(stages: string, line: string, tags: Record<string, string> = { app: 'test' }, timestampNs = 0n): PipelineOutcome {
  const expr = parseChecked(`{app="test"} ${stages}`) as LogSelectorExpr;
  const pipeline = new CompiledPipeline(expr.pipeline);
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(tags).sort()) sorted[k] = tags[k];
  const sp = pipeline.forStream(sorted, new LabelCache());
  const out = sp.process(timestampNs, line);
  if (out === null) return null;
  return { line: out, labels: sp.labels.toObject() };
}

/** Entry describes stored lines: at `atSec` seconds (repeated `count` times every `everySec`). */
export interface Entry {
  tags: Record<string, string>;
  line: string;
  atSec: number;
  everySec?: number;
  count?: number;
}

/** makeHead stores entries in a LogHead indexed on `app`. */
export function makeHead(entries: readonly Entry[]): LogHead {
  const head = new LogHead(new Set(['app']));
  const records = [];
  for (const e of entries) {
    for (let i = 0; i < (e.count ?? 1); i++) {
      const ms = BASE_MS + (e.atSec + i * (e.everySec ?? 0)) * 1000;
      records.push({ timestampNs: BigInt(Math.round(ms * 1e3)) * 1000n, message: e.line.replace('{{.i}}', String(i)), level: '', tags: e.tags });
    }
  }
  records.sort((a, b) => (a.timestampNs < b.timestampNs ? -1 : a.timestampNs > b.timestampNs ? 1 : 0));
  head.append(records);
  return head;
}

/** instant evaluates `query` at BASE_MS + atSec seconds. */
export function instant(head: LogHead, query: string, atSec: number, options?: EvalOptions): InstantResult {
  return evaluateLogQLInstant(parseChecked(query), head, BASE_MS + atSec * 1000, options);
}

/** range evaluates `query` over [start, end] seconds with `step` seconds. */
export function range(head: LogHead, query: string, startSec: number, endSec: number, stepSec: number, options?: EvalOptions): RangeResult {
  return evaluateLogQLRange(parseChecked(query, true), head, BASE_MS + startSec * 1000, BASE_MS + endSec * 1000, stepSec * 1000, options);
}

/** vectorOf flattens an instant result into `{labels} → value` pairs, in result order. */
export function vectorOf(result: InstantResult): Array<[string, number]> {
  if (result.resultType === 'scalar') return [['scalar', result.value]];
  return result.series.map((s) => [JSON.stringify(s.labels), s.values[0]]);
}

/** matrixOf flattens a range result into `{labels} → [[sec, value], …]`. */
export function matrixOf(result: RangeResult): Record<string, Array<[number, number]>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const s of result.series) {
    out[JSON.stringify(s.labels)] = [...s.timestampsMs].map((t, i) => [(t - BASE_MS) / 1000, s.values[i]]);
  }
  return out;
}
