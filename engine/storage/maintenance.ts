import type { OrgHeads } from './orgHeads.js';
import { DEFAULT_COMPACTION_INTERVAL_MS, DEFAULT_HEAD_MAX_AGE_MS, DEFAULT_HEAD_MAX_BYTES, DEFAULT_MAINTENANCE_INTERVAL_MS, type StorageOptions } from './storageOptions.js';
import type { EventSink } from './storageEvent.js';

/** MaintainedStorage is what the background loops run: the storage's own exclusive tasks. */
export interface MaintainedStorage {
  cut(): Promise<unknown>;
  compact(): Promise<unknown>;
  applyRetention(): Promise<unknown>;
}

type MaintenanceOptions = Pick<StorageOptions, 'headMaxBytes' | 'headMaxAgeMs' | 'maintenanceIntervalMs' | 'compactionIntervalMs'>;

/**
 * Maintenance runs a storage's background work: a cut when the heads grow too big (checked
 * after every write and on a timer) or too old, and compaction then retention on a slower
 * timer. Failures are reported, never thrown: the data stays where it was and the next round
 * tries again.
 */
export class Maintenance {
  private readonly timers: NodeJS.Timeout[] = [];
  private cutPending = false;
  private stopped = false;
  private readonly maxBytes: number;

  constructor(
    private readonly storage: MaintainedStorage,
    private readonly heads: OrgHeads,
    private readonly options: MaintenanceOptions,
    private readonly now: () => number,
    private readonly emit: EventSink,
  ) {
    this.maxBytes = options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES;
  }

  start(): void {
    // Heads are checked often enough that none outlives its maximum age by more than a quarter of it.
    const maxAge = this.options.headMaxAgeMs ?? DEFAULT_HEAD_MAX_AGE_MS;
    const cutEvery = this.options.maintenanceIntervalMs ?? Math.min(DEFAULT_MAINTENANCE_INTERVAL_MS, Math.max(1000, Math.floor(maxAge / 4)));
    const compactEvery = this.options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (cutEvery > 0) this.timers.push(setInterval(() => this.checkHeads(), cutEvery).unref());
    if (compactEvery > 0) {
      this.timers.push(
        setInterval(() => {
          if (this.stopped) return;
          this.storage
            .compact()
            .then(() => this.storage.applyRetention())
            .catch((err: unknown) => this.report('compaction or retention failed', err));
        }, compactEvery).unref(),
      );
    }
  }

  /** stop ends the timers; work already started finishes (the storage waits for it). */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
  }

  /** afterWrite starts a cut when the active heads reached their size limit. */
  afterWrite(): void {
    if (this.heads.activeBytes >= this.maxBytes) this.scheduleCut();
  }

  report(message: string, err: unknown): void {
    if (!this.stopped) this.emit({ level: 'error', message, fields: { error: err instanceof Error ? err.message : String(err) } });
  }

  /** checkHeads starts a cut when the heads are too big or too old, or a failed cut left frozen heads behind. */
  private checkHeads(): void {
    if (this.stopped || this.cutPending) return;
    const maxAge = this.options.headMaxAgeMs ?? DEFAULT_HEAD_MAX_AGE_MS;
    const since = this.heads.activeSinceMs;
    const tooOld = since !== undefined && this.now() - since >= maxAge;
    if (this.heads.activeBytes >= this.maxBytes || tooOld || this.heads.hasFrozen) this.scheduleCut();
  }

  private scheduleCut(): void {
    if (this.cutPending || this.stopped) return;
    this.cutPending = true;
    let cut = false;
    this.storage
      .cut()
      .then(() => {
        cut = true;
      })
      .catch((err: unknown) => this.report('cutting heads into segments failed; the data stays in the WAL and the heads', err))
      .finally(() => {
        this.cutPending = false;
        // Writes that arrived during the cut found it pending and did not ask for another;
        // if they already filled the new head, cut again now rather than at the next check.
        if (cut && this.heads.activeBytes >= this.maxBytes) this.scheduleCut();
      });
  }
}
