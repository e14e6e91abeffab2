/**
 * rate, increase and delta over anchored or smoothed windows of native histograms.
 */
import type { PositionRange } from '../../errors.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import type { EvalContext } from './context.js';
import type { RawSeries } from './series.js';

/** extendedHistogramRate is the histogram counterpart of extendedRate; null when there is no result. */
export function extendedHistogramRate(
  _ctx: EvalContext,
  _s: RawSeries,
  _from: number,
  _to: number,
  _end: number,
  _rangeMs: number,
  _smoothed: boolean,
  _name: string,
  _pos: PositionRange,
): FloatHistogram | null {
  return null;
}

/** smoothedHistogram is a smoothed instant selector's histogram at `t`, or null. */
export function smoothedHistogram(_ctx: EvalContext, _s: RawSeries, _from: number, _to: number, _t: number, _pos: PositionRange): FloatHistogram | null {
  return null;
}
