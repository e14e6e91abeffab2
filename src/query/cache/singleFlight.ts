import type { SeriesColumns } from '../../../engine/index.js';

/** SliceResult is one slice of an evaluation as the plan hands it over. */
export interface SliceResult {
  series: SeriesColumns[];
  /** bytes is the size of the workers' answers the slice came from (held while delivered). */
  bytes: number;
  annotations: string[];
}

/** FlightRun evaluates and hands each slice to `publish` in order; it resolves to the number of unreadable segments skipped. */
export type FlightRun = (signal: AbortSignal, publish: (result: SliceResult) => Promise<void>) => Promise<number>;

/** FlightOutcome is a finished evaluation: every slice (when all were kept) and whether the answer is whole. */
export interface FlightOutcome {
  results: SliceResult[];
  failedSegments: number;
}

/**
 * Flight is one evaluation that several identical queries read, each at its own pace: every
 * reader gets every slice in order. A slice is handed on only once every reader has taken the
 * one before, so the slowest reader holds the evaluation back exactly as a single client
 * does (a reader that stalls is cut off by its own stall timeout or deadline, and the rest go
 * on). Slices are kept while the flights' shared allowance (`KeptBytes`) has room, so that a
 * reader joining late can start from the first and the finished answer can be cached; past it,
 * a slice is released once all have read it and no new reader may join.
 */
export class Flight {
  private readonly results: Array<SliceResult | undefined> = [];
  private readonly positions = new Map<number, number>();
  private readonly controller = new AbortController();
  private nextReader = 0;
  private keptBytes = 0;
  private keepingAll = true;
  private finished = false;
  private failure: { error: unknown } | undefined;
  private failedSegments = 0;
  private wake: () => void = () => {};
  private changed: Promise<void> = this.nextChange();

  constructor(private readonly allowance: KeptBytes) {}

  /** joinable tells whether a new reader can still get the whole answer from this flight. */
  get joinable(): boolean {
    return this.keepingAll && !this.finished && !this.controller.signal.aborted;
  }

  /**
   * start runs the evaluation; `done` is called once with the whole answer if it finished and
   * every slice was kept, or undefined if it failed or slices were released.
   */
  start(run: FlightRun, done: (outcome: FlightOutcome | undefined) => void): void {
    run(this.controller.signal, (result) => this.publish(result)).then(
      (failedSegments) => {
        this.failedSegments = failedSegments;
        this.finished = true;
        this.notify();
        done(this.keepingAll ? { results: this.results as SliceResult[], failedSegments } : undefined);
        this.stopKeeping();
      },
      (error: unknown) => {
        this.failure = { error };
        this.finished = true;
        this.notify();
        done(undefined);
        this.stopKeeping();
      },
    );
  }

  /** join adds a reader, which reads with `read`; its leaving (its signal aborts) stops the evaluation if it was the last. */
  join(signal: AbortSignal): FlightReader {
    const id = this.nextReader++;
    this.positions.set(id, 0);
    const leave = (): void => this.leave(id);
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
    return {
      next: () => this.next(id, signal),
      taken: () => this.taken(id),
      failedSegments: () => this.failedSegments,
      close: () => {
        signal.removeEventListener('abort', leave);
        leave();
      },
    };
  }

  private async next(id: number, signal: AbortSignal): Promise<SliceResult | undefined> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const at = this.positions.get(id);
      if (at === undefined) throw new Error('reader left the flight');
      if (at < this.results.length) {
        const result = this.results[at];
        if (result === undefined) throw new Error('flight released a slice before its reader took it');
        return result;
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.finished) return undefined;
      await untilEither(this.changed, signal);
    }
  }

  private taken(id: number): void {
    const at = this.positions.get(id);
    if (at === undefined) return;
    this.positions.set(id, at + 1);
    this.release();
    this.notify();
  }

  private leave(id: number): void {
    if (!this.positions.delete(id)) return;
    if (this.positions.size === 0 && !this.finished) this.controller.abort(new Error('every reader of the evaluation left'));
    this.release();
    this.notify();
  }

  /** publish adds a slice, then waits until every reader has taken it. */
  private async publish(result: SliceResult): Promise<void> {
    const index = this.results.length;
    this.results.push(result);
    if (this.keepingAll && this.allowance.take(result.bytes)) this.keptBytes += result.bytes;
    else this.stopKeeping();
    this.release();
    this.notify();
    while (!this.controller.signal.aborted && this.slowest() <= index) await untilEither(this.changed, this.controller.signal);
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  /** stopKeeping gives the kept slices' bytes back to the allowance; from now on slices are released once read. */
  private stopKeeping(): void {
    if (!this.keepingAll && this.keptBytes === 0) return;
    this.keepingAll = false;
    this.allowance.give(this.keptBytes);
    this.keptBytes = 0;
  }

  /** slowest is the position of the reader furthest behind (the slices it has taken). */
  private slowest(): number {
    let min = Infinity;
    for (const at of this.positions.values()) min = Math.min(min, at);
    return min;
  }

  /** release lets go of slices every reader has taken, once slices are no longer all kept. */
  private release(): void {
    if (this.keepingAll) return;
    const upTo = Math.min(this.slowest(), this.results.length);
    for (let i = 0; i < upTo; i++) this.results[i] = undefined;
  }

  private notify(): void {
    const wake = this.wake;
    this.changed = this.nextChange();
    wake();
  }

  private nextChange(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

/** FlightReader is one query's view of a flight. */
export interface FlightReader {
  /** next is the reader's next slice, or undefined at the end; it throws the evaluation's error, or the reader's abort reason. */
  next(): Promise<SliceResult | undefined>;
  /** taken says the reader is done with the slice `next` gave, which lets the evaluation go on. */
  taken(): void;
  failedSegments(): number;
  close(): void;
}

/** untilEither resolves when `change` does, or rejects when `signal` aborts. */
function untilEither(change: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    change.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/**
 * KeptBytes is what all flights together may keep of their slices beyond what their readers
 * hold anyway: without it, many different large queries at once would each keep their whole
 * answer.
 */
export class KeptBytes {
  private used = 0;

  constructor(readonly limit: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }

  get bytes(): number {
    return this.used;
  }
}

/**
 * FlightTable finds the evaluation already running for a key, so that identical queries
 * arriving together are evaluated once.
 */
export class FlightTable {
  private readonly flights = new Map<string, Flight>();
  readonly kept: KeptBytes;

  constructor(keepBytes: number) {
    this.kept = new KeptBytes(keepBytes);
  }

  /**
   * join reads the flight running under `key`, or starts one with `run` (then `done` gets its
   * outcome). `shared` says whether the reader joined an evaluation already under way.
   */
  join(key: string, signal: AbortSignal, run: FlightRun, done: (outcome: FlightOutcome | undefined) => void): { reader: FlightReader; shared: boolean } {
    const running = this.flights.get(key);
    if (running !== undefined && running.joinable) return { reader: running.join(signal), shared: true };
    const flight = new Flight(this.kept);
    this.flights.set(key, flight);
    const reader = flight.join(signal);
    flight.start(run, (outcome) => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
      done(outcome);
    });
    return { reader, shared: false };
  }

  /** size is how many evaluations are running. */
  get size(): number {
    return this.flights.size;
  }
}
