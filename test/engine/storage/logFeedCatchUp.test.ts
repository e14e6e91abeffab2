import { describe, expect, it } from 'vitest';
import { LogFeed } from '../../../engine/storage/logFeed.js';
import type { StorageEvent } from '../../../engine/storage/storageEvent.js';
import type { WriteLog, WriteLogReader } from '../../../engine/storage/writeLog.js';

/**
 * SlowLog is a one-partition write log in memory whose reader hands over one record every
 * `delayMs`, as a reader that lags behind the log does; `endPosition` can be made to fail.
 */
class SlowLog implements WriteLog {
  readonly partitions = 1;
  readonly identity = 'slow';
  readonly maxRecordBytes = 1024;
  readonly records: Uint8Array[] = [];
  endFails = false;

  constructor(private readonly delayMs: number) {}

  async append(_partition: number, record: Uint8Array): Promise<number> {
    this.records.push(record);
    return this.records.length;
  }

  async endPosition(): Promise<number> {
    if (this.endFails) throw new Error('log unreachable');
    return this.records.length;
  }

  read(_partition: number, after: number, onRecord: (position: number, record: Uint8Array) => void): WriteLogReader {
    let position = after;
    const timer = setInterval(() => {
      if (this.delayMs === Infinity || position >= this.records.length) return;
      position++;
      onRecord(position, this.records[position - 1]);
    }, Number.isFinite(this.delayMs) ? this.delayMs : 1_000);
    return { stop: async () => clearInterval(timer) };
  }

  async commit(): Promise<void> {}

  async committed(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

function feedOver(log: SlowLog, events: StorageEvent[] = []): { feed: LogFeed; applied: string[] } {
  const applied: string[] = [];
  const feed = new LogFeed({ log, indexedTags: new Set(), start: {}, apply: (record) => applied.push(Buffer.from(record).toString()), onEvent: (e) => events.push(e) });
  return { feed, applied };
}

describe('write log feed catching up before a release', () => {
  it('waits until every record the log holds is applied by a lagging reader', async () => {
    const log = new SlowLog(15);
    for (let i = 0; i < 6; i++) await log.append(0, Buffer.from(`r${i}`));
    const { feed, applied } = feedOver(log);
    feed.startPartitions({ 0: 0 });
    expect(applied).toEqual([]);
    await feed.catchUp([0], 5_000);
    expect(applied).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    await feed.stop();
  });

  it('gives up at its bound when the reader delivers nothing, and when the log cannot say where it ends', async () => {
    const stuck = new SlowLog(Infinity);
    await stuck.append(0, Buffer.from('never'));
    const { feed } = feedOver(stuck);
    feed.startPartitions({ 0: 0 });
    const started = Date.now();
    await feed.catchUp([0], 100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(2_000);
    await feed.stop();

    const unreachable = new SlowLog(10);
    unreachable.endFails = true;
    const events: StorageEvent[] = [];
    const other = feedOver(unreachable, events);
    other.feed.startPartitions({ 0: 0 });
    await other.feed.catchUp([0], 5_000);
    expect(events.map((e) => e.message)).toContain('could not read where the write log ends before a release; the next owner reads the rest');
    await other.feed.stop();
  });

  it('does not wait for partitions it is not reading', async () => {
    const log = new SlowLog(Infinity);
    await log.append(0, Buffer.from('r0'));
    const { feed } = feedOver(log);
    const started = Date.now();
    await feed.catchUp([0], 5_000);
    expect(Date.now() - started).toBeLessThan(100);
  });
});
