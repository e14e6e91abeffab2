import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SnapshotLogReader } from '../../../engine/query/snapshotLogReader.js';
import { LogHead, type LogEntry, type LogStreamData } from '../../../engine/storage/logHead.js';
import { mergeLogRuns } from '../../../engine/storage/orgViews.js';
import { ALL_NS, openStorage, tempDir } from './segmentFixtures.js';

/**
 * Readers of stored lines make a stream's messages when they are read (LogStreamData), so a
 * query holds one stream's lines at a time. What they read must be what eager reading gave:
 * the lines of each tag set in time order, the older source's first on equal timestamps.
 */
const line = (t: bigint, message: string, service: string): LogEntry => ({ timestampNs: t, message, level: 'info', tags: { service_name: service } });

/** linesOf reads a stream's lines both ways a reader offers: made together, and one at a time where it can. */
function linesOf(stream: LogStreamData): string[] {
  const together = stream.messages;
  if (stream.messageAt !== undefined) expect(Array.from({ length: stream.timestampsNs.length }, (_, i) => stream.messageAt!(i))).toEqual(together);
  return together;
}

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
      // A merge of a segment's run (read line by line) and the head's.
      expect(a.messageAt).toBeDefined();
      expect(linesOf(a)).toEqual(['a1 é', 'a2', 'a2 again', 'a-head', 'a3']);
      // Made again, the same.
      expect(a.messages).toEqual(a.messages);
      expect(linesOf(byService.get('b')!)).toEqual(['b1', 'b-head']);
      // Without lines, every message is empty and the timestamps stay.
      const counted = storage.logs('o').select([], ...ALL_NS, { lines: false });
      expect(counted.flatMap(linesOf)).toEqual(['', '', '', '', '', '', '']);
      expect(counted.reduce((n, s) => n + s.timestampsNs.length, 0)).toBe(7);
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a head snapshot as the live head reads it, lines out of arrival order sorted by time, with or without lines', () => {
    const head = new LogHead(new Set(['service_name']), { rows: 4, bytes: 1 << 20 });
    // Several sealed chunks; lines arriving out of time order within a stream; one non-ASCII line.
    const base = 1_000_000n;
    const entries = Array.from({ length: 23 }, (_, i) => line(base + BigInt((i * 7) % 11), `line ${i}${i === 5 ? ' ✓' : ''}`, i % 3 === 0 ? 'x' : 'y'));
    head.append(entries.slice(0, 12));
    const reader = () => new SnapshotLogReader(head.snapshot());
    head.append(entries.slice(12));
    for (const projection of [undefined, { lines: false }]) {
      const live = head.select([], ...ALL_NS, projection);
      const snapped = reader().select([], ...ALL_NS, projection);
      expect(snapped.map((s) => [s.tags, [...s.timestampsNs], linesOf(s)])).toEqual(live.map((s) => [s.tags, [...s.timestampsNs], s.messages]));
    }
  });

  it('merges runs of its own: three runs in turn, as a select of three sources does', () => {
    const run = (ts: number[], prefix: string): LogStreamData => ({ tags: { s: 'x' }, timestampsNs: BigInt64Array.from(ts.map(BigInt)), messages: ts.map((t) => `${prefix}${t}`) });
    const merged = [run([1, 4, 4], 'old'), run([2, 4, 9], 'mid'), run([0, 4], 'new')].reduce(mergeLogRuns);
    expect([...merged.timestampsNs]).toEqual([0n, 1n, 2n, 4n, 4n, 4n, 4n, 9n]);
    expect(merged.messages).toEqual(['new0', 'old1', 'mid2', 'old4', 'old4', 'mid4', 'new4', 'mid9']);
  });
});
