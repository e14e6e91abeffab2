import { lowerBound, upperBound } from '../storage/bounds.js';
import type { LogReader, LogStreamData } from '../storage/logHead.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';



/** StaticLogReader serves a worker's reads from the streams shipped with its task. */
export class StaticLogReader implements LogReader {
  constructor(private readonly streams: readonly LogStreamData[]) {}

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint): LogStreamData[] {
    const compiled = compileMatchers(matchers);
    const out: LogStreamData[] = [];
    for (const s of this.streams) {
      if (!matchesAll(s.tags, compiled)) continue;
      const from = lowerBound(s.timestampsNs, minNs);
      const to = upperBound(s.timestampsNs, maxNs);
      if (to > from) out.push({ tags: s.tags, timestampsNs: s.timestampsNs.subarray(from, to), messages: s.messages.slice(from, to) });
    }
    return out;
  }
}
