import type { Expr } from '../logql/ast.js';
import { walkExpr } from '../logql/ast.js';
import type { LabelMatcher } from '../storage/matchers.js';

/** LogSelection is one selector's data need, in nanoseconds (bounds inclusive). */
export interface LogSelection {
  matchers: LabelMatcher[];
  minNs: bigint;
  maxNs: bigint;
  /**
   * lines is false when the evaluator only counts the lines (count_over_time or rate with no
   * pipeline and no unwrap), so their messages need not be read or shipped.
   */
  lines?: boolean;
}

const NS_PER_MS = 1_000_000n;

function toStorage(matchers: ReadonlyArray<{ name: string; op: LabelMatcher['type']; value: string }>): LabelMatcher[] {
  return matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
}

/**
 * logSelectionsFor lists the lines a LogQL expression evaluated over [startMs, endMs] can
 * read: a raw query reads its window; each range aggregation reads `(t - range - offset,
 * t - offset]` for every step t. Windows are left-open, so one extra millisecond is harmless.
 */
export function logSelectionsFor(expr: Expr, startMs: number, endMs: number): LogSelection[] {
  if (expr.kind === 'LogSelector') {
    return [{ matchers: toStorage(expr.matchers), minNs: BigInt(startMs) * NS_PER_MS, maxNs: BigInt(endMs) * NS_PER_MS + (NS_PER_MS - 1n) }];
  }
  const out: LogSelection[] = [];
  walkExpr(expr, (node) => {
    if (node.kind !== 'RangeAggregation') return;
    const r = node.range;
    const countsOnly = node.op !== 'bytes_over_time' && node.op !== 'bytes_rate' && r.unwrap === undefined && r.selector.pipeline.length === 0;
    out.push({
      matchers: toStorage(r.selector.matchers),
      minNs: BigInt(startMs - r.rangeMs - r.offsetMs) * NS_PER_MS,
      maxNs: BigInt(endMs - r.offsetMs) * NS_PER_MS,
      lines: !countsOnly,
    });
  });
  return out;
}
