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
  /**
   * publishOnly makes `publish` resolve as soon as the log acknowledged the write, without
   * waiting for this process to apply it: an ingest-only process applies nothing.
   */
  publishOnly?: boolean;
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
  private readonly readers = new Map<number, WriteLogReader>();
  /**
   * held are the partitions whose records may be in the heads: those being read, and those
   * stopped but not yet forgotten (a release waits for the cut that covers them).
   */
  private readonly held = new Set<number>();
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
    for (let p = 0; p < log.partitions; p++) this.startReader(p, (position) => position <= ends[p] && replayed++);
    await Promise.all(ends.map((end, p) => this.reached(p, end, Infinity)));
    if (replayed > 0) this.emit({ level: 'info', message: 'replayed the write log', fields: { records: replayed, partitions: log.partitions } });
  }

  /**
   * startPartitions starts reading the given partitions, each after the position given for it
   * (what the segments cover), as an ingester does when it takes their leases. It does not
   * wait for the readers to catch up.
   */
  startPartitions(after: Readonly<Record<string, number>>): void {
    for (const [key, position] of Object.entries(after)) {
      const p = Number(key);
      if (this.readers.has(p)) continue;
      this.applied[p] = position;
      this.startReader(p);
    }
  }

  /** resumePartitions starts reading stopped but still held partitions again after what they applied (a release whose cut failed). */
  resumePartitions(partitions: readonly number[]): void {
    for (const p of partitions) if (this.held.has(p) && !this.readers.has(p)) this.startReader(p);
  }

  /**
   * catchUp waits, at most `timeoutMs` in all, until the given partitions being read have
   * applied everything the log held when it was called. A release calls it before its last
   * cut, so what was acknowledged before a graceful stop is in that cut's segments instead of
   * left to whoever reads the partition next, which may be nobody for a while (the last
   * ingester stopping). Past the bound, or if the log cannot say where it ends, the release
   * goes on as before: the next owner reads the rest.
   */
  async catchUp(partitions: readonly number[], timeoutMs: number): Promise<void> {
    const reading = partitions.filter((p) => this.readers.has(p));
    if (reading.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    const caughtUp = Promise.all(reading.map((p) => this.options.log.endPosition(p).then((end) => this.reached(p, end, timeoutMs)))).then(
      () => {},
      (err: unknown) => this.emit({ level: 'warn', message: 'could not read where the write log ends before a release; the next owner reads the rest', fields: { error: err instanceof Error ? err.message : String(err) } }),
    );
    await Promise.race([caughtUp, bound]);
    clearTimeout(timer);
  }

  /** stopPartitions stops reading the given partitions; they stay held (their records stay in the heads) until forgotten. */
  async stopPartitions(partitions: readonly number[]): Promise<void> {
    await Promise.all(
      partitions.map(async (p) => {
        const reader = this.readers.get(p);
        this.readers.delete(p);
        await reader?.stop();
      }),
    );
  }

  /** forget drops stopped partitions from the held set: the heads no longer hold their records. */
  forget(partitions: readonly number[]): void {
    for (const p of partitions) if (!this.readers.has(p)) this.held.delete(p);
  }

  /** heldPartitions lists the partitions whose records may be in the heads. */
  heldPartitions(): number[] {
    return [...this.held].sort((a, b) => a - b);
  }

  /** readingPartitions lists the partitions being read now. */
  readingPartitions(): number[] {
    return [...this.readers.keys()].sort((a, b) => a - b);
  }

  private startReader(p: number, onNew?: (position: number) => void): void {
    this.held.add(p);
    this.readers.set(
      p,
      this.options.log.read(
        p,
        this.applied[p],
        (position, record) => {
          if (this.take(p, position, record)) onNew?.(position);
        },
        (err) => this.emit({ level: 'warn', message: 'reading the write log failed; retrying', fields: { partition: p, error: err instanceof Error ? err.message : String(err) } }),
      ),
    );
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
    if (this.options.publishOnly) return;
    await Promise.all(parts.map(({ partition, position }) => this.reached(partition, position, APPLY_WAIT_MS)));
  }

  /** positions is the last applied position of every held partition, as the catalog stores them. */
  positions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.held) if (this.applied[p] > 0) out[String(p)] = this.applied[p];
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
    const readers = [...this.readers.values()];
    this.readers.clear();
    await Promise.all(readers.map((r) => r.stop()));
    for (const list of this.waiters) for (const w of list.splice(0)) w.resolve();
  }
}
