import type { LogReader, LogStreamData } from '../storage/logHead.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';

function lowerBoundNs(ts: BigInt64Array, t: bigint): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBoundNs(ts: BigInt64Array, t: bigint): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** StaticLogReader serves a worker's reads from the streams shipped with its task. */
export class StaticLogReader implements LogReader {
  constructor(private readonly streams: readonly LogStreamData[]) {}

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint): LogStreamData[] {
    const compiled = compileMatchers(matchers);
    const out: LogStreamData[] = [];
    for (const s of this.streams) {
      if (!matchesAll(s.tags, compiled)) continue;
      const from = lowerBoundNs(s.timestampsNs, minNs);
      const to = upperBoundNs(s.timestampsNs, maxNs);
      if (to > from) out.push({ tags: s.tags, timestampsNs: s.timestampsNs.subarray(from, to), messages: s.messages.slice(from, to) });
    }
    return out;
  }
}
