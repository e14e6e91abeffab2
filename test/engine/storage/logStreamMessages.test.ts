import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { LogEntry, LogStreamData } from '../../../engine/storage/logHead.js';
import { mergeLogRuns } from '../../../engine/storage/orgViews.js';
import { ALL_NS, openStorage, tempDir } from './segmentFixtures.js';

/**
 * Readers of stored lines make a stream's messages when they are read (LogStreamData), so a
 * query holds one stream's lines at a time. What they read must be what eager reading gave:
 * the lines of each tag set in time order, the older source's first on equal timestamps.
 */
const line = (t: bigint, message: string, service: string): LogEntry => ({ timestampNs: t, message, level: 'info', tags: { service_name: service } });

describe('stream messages made when read', () => {
  it('merges a run of a segment and one of the head in time order, older first on ties, the same at every read', async () => {
    const dir = await tempDir();
    const { storage } = await openStorage(dir);
    try {
      const base = 1_700_000_000_000_000_000n;
      // Into a segment: a and b interleaved; then into the head: more of both, one at a time already stored.
      await storage.appendLogs('o', [line(base + 1n, 'a1 é', 'a'), line(base + 2n, 'b1', 'b'), line(base + 3n, 'a2', 'a'), line(base + 5n, 'a3', 'a')]);
      await storage.cut();
      await storage.appendLogs('o', [line(base + 3n, 'a2 again', 'a'), line(base + 4n, 'a-head', 'a'), line(base + 6n, 'b-head', 'b')]);
      const streams = storage.logs('o').select([], ...ALL_NS);
      const byService = new Map(streams.map((s) => [s.tags.service_name, s]));
      const a = byService.get('a')!;
      expect([...a.timestampsNs].map((t) => t - base)).toEqual([1n, 3n, 3n, 4n, 5n]);
      expect(a.messages).toEqual(['a1 é', 'a2', 'a2 again', 'a-head', 'a3']);
      // Made again, the same.
      expect(a.messages).toEqual(a.messages);
      expect(byService.get('b')!.messages).toEqual(['b1', 'b-head']);
      // Without lines, every message is empty and the timestamps stay.
      const counted = storage.logs('o').select([], ...ALL_NS, { lines: false });
      expect(counted.flatMap((s) => s.messages)).toEqual(['', '', '', '', '', '', '']);
      expect(counted.reduce((n, s) => n + s.timestampsNs.length, 0)).toBe(7);
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('merges runs of its own: three runs in turn, as a select of three sources does', () => {
    const run = (ts: number[], prefix: string): LogStreamData => ({ tags: { s: 'x' }, timestampsNs: BigInt64Array.from(ts.map(BigInt)), messages: ts.map((t) => `${prefix}${t}`) });
    const merged = [run([1, 4, 4], 'old'), run([2, 4, 9], 'mid'), run([0, 4], 'new')].reduce(mergeLogRuns);
    expect([...merged.timestampsNs]).toEqual([0n, 1n, 2n, 4n, 4n, 4n, 4n, 9n]);
    expect(merged.messages).toEqual(['new0', 'old1', 'mid2', 'old4', 'old4', 'mid4', 'new4', 'mid9']);
  });
});
