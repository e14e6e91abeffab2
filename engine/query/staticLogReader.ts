import { lowerBound, upperBound } from '../storage/bounds.js';
import type { LogProjection, LogReader, LogStreamData, TagSetVisitor } from '../storage/logHead.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';

/** StaticLogReader serves a worker's reads from the streams shipped with its task. */
export class StaticLogReader implements LogReader {
  constructor(private readonly streams: readonly LogStreamData[]) {}

  get rowCount(): number {
    let n = 0;
    for (const s of this.streams) n += s.timestampsNs.length;
    return n;
  }

  forEachTagSet(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, visit: TagSetVisitor): void {
    for (const s of this.select(matchers, minNs, maxNs)) if (visit(s.tags) === false) return;
  }

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[] {
    const lines = projection?.lines !== false;
    const compiled = compileMatchers(matchers);
    const out: LogStreamData[] = [];
    for (const s of this.streams) {
      if (!matchesAll(s.tags, compiled)) continue;
      const from = lowerBound(s.timestampsNs, minNs);
      const to = upperBound(s.timestampsNs, maxNs);
      if (to > from) out.push({ tags: s.tags, timestampsNs: s.timestampsNs.subarray(from, to), messages: lines ? s.messages.slice(from, to) : new Array<string>(to - from).fill('') });
    }
    return out;
  }
}
