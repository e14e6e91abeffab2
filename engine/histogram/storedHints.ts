/**
 * The counter reset hints a histogram sample carries when read back from storage. Prometheus'
 * TSDB cuts a new chunk at every detected counter reset and reports, for each sample it reads,
 * "counter reset" or "unknown" for a chunk's first sample and "not a counter reset" for the
 * others. A store that keeps the hint per sample reproduces this by applying storedHints to a
 * series' histograms in time order at write time; gauge histograms and explicit hints stay.
 */
import { CounterResetHint, detectReset, type FloatHistogram } from './floatHistogram.js';

/** storedHints returns the series' histograms with the hints a read from storage would give them. */
export function storedHints(histograms: readonly (FloatHistogram | undefined)[]): (FloatHistogram | undefined)[] {
  let prev: FloatHistogram | undefined;
  return histograms.map((h) => {
    if (h === undefined) {
      // A float sample (or staleness marker) in between starts a new chunk.
      prev = undefined;
      return h;
    }
    let hint = h.counterResetHint;
    if (hint === CounterResetHint.Unknown && prev !== undefined) {
      hint = detectReset(h, prev) ? CounterResetHint.CounterReset : CounterResetHint.NotCounterReset;
    }
    prev = h;
    return hint === h.counterResetHint ? h : { ...h, counterResetHint: hint };
  });
}
