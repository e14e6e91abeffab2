import { bitsOf, isStale } from './staleness.js';

/**
 * ValueFactsMemo remembers, per series row, two facts about its values found in one pass: whether
 * one is a staleness marker, and whether one is below the value before it (a counter reset as
 * rate counts them: NaN compares false both ways). A reader kept across queries scans each
 * series once instead of the evaluator scanning it for markers, and rate for resets, on every
 * query.
 */
export class ValueFactsMemo {
  /** 0: not checked yet; otherwise CHECKED with HAS_MARKER and HAS_RESET as found. */
  private state = new Uint8Array(0);

  staleFree(series: number, values: () => Float64Array): boolean {
    return (this.factsOf(series, values) & HAS_MARKER) === 0;
  }

  resetFree(series: number, values: () => Float64Array): boolean {
    return (this.factsOf(series, values) & HAS_RESET) === 0;
  }

  private factsOf(series: number, values: () => Float64Array): number {
    if (series >= this.state.length) {
      const grown = new Uint8Array(Math.max(series + 1, this.state.length * 2));
      grown.set(this.state);
      this.state = grown;
    }
    if (this.state[series] === 0) this.state[series] = valueFacts(values());
    return this.state[series];
  }
}

const CHECKED = 1;
const HAS_MARKER = 2;
const HAS_RESET = 4;

/** valueFacts scans a series' values once for staleness markers and counter resets. */
function valueFacts(values: Float64Array): number {
  const words = bitsOf(values);
  let facts = CHECKED;
  let previous = values.length > 0 ? values[0] : 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v < previous) facts |= HAS_RESET;
    previous = v;
    if (isStale(words, i)) facts |= HAS_MARKER;
  }
  return facts;
}
