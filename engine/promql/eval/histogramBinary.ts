/**
 * Binary operators on a pair of samples of which at least one is a native histogram, with
 * Prometheus' rules: histogram + and - histogram, histogram * and / float, float * histogram,
 * == and != between histograms; every other combination yields nothing and an info note.
 */
import type { PositionRange } from '../../errors.js';
import { combine, compact, CounterResetHint, divide, HistogramError, histogramsEqual, scale, type FloatHistogram } from '../../histogram/floatHistogram.js';
import type { BinaryOp } from '../ast.js';
import { trimBuckets } from '../../histogram/trim.js';
import type { EvalContext } from './context.js';

/** HistogramElemResult is the outcome for one pair: the value to write and whether to keep it. */
export interface HistogramElemResult {
  value: number;
  histogram: FloatHistogram | undefined;
  keep: boolean;
}

/** histogramElem applies `op` to a pair (a float where its histogram is undefined); null drops the pair. */
export function histogramElem(
  ctx: EvalContext,
  op: BinaryOp,
  a: number,
  ha: FloatHistogram | undefined,
  b: number,
  hb: FloatHistogram | undefined,
  pos: PositionRange,
): HistogramElemResult | null {
  const notes = ctx.histogramNotes;
  if (ha === undefined && hb !== undefined) {
    if (op === '*') return { value: 0, histogram: compact(scale(hb, a)), keep: true };
    notes.incompatibleTypes(op, 'float', 'histogram', pos);
    return null;
  }
  if (ha !== undefined && hb === undefined) {
    if (op === '*') return { value: 0, histogram: compact(scale(ha, b)), keep: true };
    if (op === '/') return { value: 0, histogram: compact(divide(ha, b)), keep: true };
    if (op === '</' || op === '>/') return { value: 0, histogram: trimBuckets(ha, b, op === '</'), keep: true };
    notes.incompatibleTypes(op, 'histogram', 'float', pos);
    return null;
  }
  if (ha === undefined || hb === undefined) return null;
  switch (op) {
    case '+':
    case '-': {
      try {
        const r = combine(ha, hb, op === '+' ? 1 : -1);
        const operation = op === '+' ? 'addition' : 'subtraction';
        if (r.boundsReconciled) notes.customBucketsReconciled(operation, pos);
        if (r.counterResetCollision) {
          notes.counterResetCollision(operation, pos);
          return null;
        }
        const histogram = op === '-' ? { ...r.histogram, counterResetHint: CounterResetHint.Gauge } : r.histogram;
        return { value: 0, histogram: compact(histogram), keep: true };
      } catch (err) {
        if (!(err instanceof HistogramError)) throw err;
        notes.incompatibleBucketLayout(op, pos);
        return null;
      }
    }
    case '==':
      return { value: 0, histogram: ha, keep: histogramsEqual(ha, hb) };
    case '!=':
      return { value: 0, histogram: ha, keep: !histogramsEqual(ha, hb) };
    default:
      notes.incompatibleTypes(op, 'histogram', 'histogram', pos);
      return null;
  }
}
