/**
 * The counter reset hints a histogram sample carries when read back from storage. Prometheus'
 * TSDB cuts a new chunk at every counter reset (detected, or marked explicitly), when the
 * sample kind changes between gauge and counter histograms, and after a float or staleness
 * marker; reading back, it reports "gauge" for gauge histograms, "not a counter reset" for every
 * sample after a chunk's first, and "unknown" for a chunk's first sample, even one cut for a
 * reset, since it cannot be sure the chunk before is still there (Prometheus issue 15346). A
 * store that keeps the hint per sample reproduces this by applying storedHints to a series'
 * histograms in time order at write time.
 */
import { CounterResetHint, detectReset, type FloatHistogram } from './floatHistogram.js';

/**
 * storedHint is the hint histogram `h` reads back with when written right after `prev`
 * (undefined: after a float, a staleness marker or at the start).
 */
export function storedHint(h: FloatHistogram, prev: FloatHistogram | undefined): CounterResetHint {
  const hint = h.counterResetHint;
  if (hint === CounterResetHint.Gauge) return hint;
  // A chunk's first sample: nothing before it, a gauge before it, or a reset cut a new chunk.
  if (prev === undefined || prev.counterResetHint === CounterResetHint.Gauge) return CounterResetHint.Unknown;
  if (hint === CounterResetHint.CounterReset) return CounterResetHint.Unknown;
  if (hint === CounterResetHint.NotCounterReset) return hint;
  return detectReset(h, prev) ? CounterResetHint.Unknown : CounterResetHint.NotCounterReset;
}

/** storedHints returns the series' histograms with the hints a read from storage would give them. */
export function storedHints(histograms: readonly (FloatHistogram | undefined)[]): (FloatHistogram | undefined)[] {
  let prev: FloatHistogram | undefined;
  return histograms.map((h) => {
    if (h === undefined) {
      prev = undefined;
      return h;
    }
    const hint = storedHint(h, prev);
    prev = h;
    return hint === h.counterResetHint ? h : { ...h, counterResetHint: hint };
  });
}
