import { publishEntry } from './logPublisher.js';
import type { EventSink } from './storageEvent.js';
import type { WalEntry } from './walCodec.js';
import type { WriteLog, WriteLogReader } from './writeLog.js';

/**
 * LogFeed connects the storage to a replicated write log: one reader per partition hands
 * each record to `apply` in order, and `publish` (publishEntry, then a wait for this process
 * to apply it) serves a process that also ingests. The feed remembers the last
 * position applied per partition and skips anything at or below it, so a record delivered
 * twice (a reader recreated after a lost connection, a replay overlapping what the segments
 * hold) changes the heads once.
 *
 * Publishing and applying only meet in the log: a process that only ingests runs
 * publishEntry alone, and one that only applies (an ingester) runs the readers alone.
 */
export interface LogFeedOptions {
  log: WriteLog;
  indexedTags: ReadonlySet<string>;
  /** start holds, per partition number, the last position already covered (by segments); reading starts after it. */
  start: Readonly<Record<string, number>>;
  /** apply puts one record into the heads; it throws for a record it cannot decode (reported and skipped). */
  apply: (record: Uint8Array) => void;
  onEvent?: EventSink;
}

/**
 * APPLY_WAIT_MS bounds how long a publish waits, after the log's acknowledgement, for this
 * process to apply its own write, so a query right after a 2xx sees it. The write is durable
 * either way; past the bound the answer goes out and the write shows up when applied.
 */
const APPLY_WAIT_MS = 5000;

export class LogFeed {
  private readonly applied: number[];
  private readonly readers: WriteLogReader[] = [];
  private readonly waiters: Array<Array<{ position: number; resolve: () => void }>>;
  private readonly emit: EventSink;

  constructor(private readonly options: LogFeedOptions) {
    const { partitions } = options.log;
    this.applied = Array.from({ length: partitions }, (_, p) => options.start[String(p)] ?? 0);
    this.waiters = Array.from({ length: partitions }, () => []);
    this.emit = options.onEvent ?? (() => {});
  }

  /**
   * start reads every partition from its start position and resolves once each has applied
   * what the log held when start was called (replay), so a restarted process serves queries
   * with every acknowledged write in place.
   */
  async start(): Promise<void> {
    const { log } = this.options;
    const ends = await Promise.all(Array.from({ length: log.partitions }, (_, p) => log.endPosition(p)));
    let replayed = 0;
    for (let p = 0; p < log.partitions; p++) {
      this.readers.push(
        log.read(
          p,
          this.applied[p],
          (position, record) => {
            if (this.take(p, position, record) && position <= ends[p]) replayed++;
          },
          (err) => this.emit({ level: 'warn', message: 'reading the write log failed; retrying', fields: { partition: p, error: err instanceof Error ? err.message : String(err) } }),
        ),
      );
    }
    await Promise.all(ends.map((end, p) => this.reached(p, end, Infinity)));
    if (replayed > 0) this.emit({ level: 'info', message: 'replayed the write log', fields: { records: replayed, partitions: log.partitions } });
  }

  /** take applies one delivered record unless its position is already applied; returns whether it was new. */
  private take(partition: number, position: number, record: Uint8Array): boolean {
    if (position <= this.applied[partition]) return false;
    try {
      this.options.apply(record);
    } catch (err) {
      this.emit({ level: 'error', message: 'skipping undecodable write log record', fields: { partition, position, error: String(err) } });
    }
    this.applied[partition] = position;
    const waiting = this.waiters[partition];
    if (waiting.length > 0) {
      this.waiters[partition] = waiting.filter((w) => {
        if (w.position > position) return true;
        w.resolve();
        return false;
      });
    }
    return true;
  }

  /** reached resolves once `partition` applied `position`, or after `timeoutMs`. */
  private reached(partition: number, position: number, timeoutMs: number): Promise<void> {
    if (this.applied[partition] >= position) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(resolve, timeoutMs) : undefined;
      this.waiters[partition].push({
        position,
        resolve: () => {
          if (timer) clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /**
   * publish appends a write to the log (publishEntry) and then waits, at most APPLY_WAIT_MS,
   * until this process applied every part, so the caller's next query sees it.
   */
  async publish(entry: WalEntry): Promise<void> {
    const parts = await publishEntry(this.options.log, entry, this.options.indexedTags);
    await Promise.all(parts.map(({ partition, position }) => this.reached(partition, position, APPLY_WAIT_MS)));
  }

  /** positions is the last applied position of every partition, as the catalog stores them. */
  positions(): Record<string, number> {
    const out: Record<string, number> = {};
    this.applied.forEach((position, p) => {
      if (position > 0) out[String(p)] = position;
    });
    return out;
  }

  /** commit tells the log how far the segments cover each partition; a failure is only reported (the catalog holds the truth). */
  async commit(positions: Readonly<Record<string, number>>): Promise<void> {
    await Promise.all(
      Object.entries(positions).map(([p, position]) =>
        this.options.log.commit(Number(p), position).catch((err: unknown) =>
          this.emit({ level: 'warn', message: 'recording the committed write log position failed', fields: { partition: p, error: err instanceof Error ? err.message : String(err) } }),
        ),
      ),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.readers.splice(0).map((r) => r.stop()));
    for (const list of this.waiters) for (const w of list.splice(0)) w.resolve();
  }
}
