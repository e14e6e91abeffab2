import type { SeriesColumns } from '../../../engine/index.js';

/**
 * CachedPiece is part of one query's answer: its steps from `fromMs` to `toMs` (both step
 * times, inclusive) within one split interval, and the samples they were computed from.
 */
export interface CachedPiece {
  fromMs: number;
  toMs: number;
  /** series sorted by labels, each with its points in [fromMs, toMs] only. */
  series: SeriesColumns[];
  bytes: number;
  /** dataFromMs and dataToMs bound the sample times the piece was computed from: a sample written later inside them makes it stale. */
  dataFromMs: number;
  dataToMs: number;
}

/** ResultsCacheCounters is what the cache reports as it drops pieces. */
export interface ResultsCacheCounters {
  evicted(count: number): void;
  invalidated(count: number): void;
}

/** OrgPieces is one org's pieces, in least recently used first order (a Map keeps insertion order). */
interface OrgPieces {
  pieces: Map<string, CachedPiece>;
  bytes: number;
  /** epoch counts late writes; an evaluation that saw it change may have read data from before one. */
  epoch: number;
  /** newestDataMs is the latest `dataToMs` of any piece the org holds, so most late writes are checked in O(1). */
  newestDataMs: number;
}

/**
 * ResultsCache holds pieces of query answers under one memory budget shared by all orgs. Each
 * org has its own map, so a lookup never reaches another org's pieces. When the budget is
 * passed, the least recently used piece of the org that holds the most is dropped: an org can
 * fill what the others leave free but cannot push them below an even share. A piece larger than
 * a quarter of the budget is not kept.
 */
export class ResultsCache {
  private readonly orgs = new Map<string, OrgPieces>();
  private total = 0;
  private count = 0;

  constructor(
    readonly budgetBytes: number,
    private readonly counters: ResultsCacheCounters,
  ) {}

  /** bytes is what the cache holds now. */
  get bytes(): number {
    return this.total;
  }

  /** entries is how many pieces the cache holds now. */
  get entries(): number {
    return this.count;
  }

  /** maxPieceBytes is the largest piece the cache keeps. */
  get maxPieceBytes(): number {
    return Math.floor(this.budgetBytes / 4);
  }

  /** get returns the org's piece under `key` and marks it most recently used. */
  get(org: string, key: string): CachedPiece | undefined {
    const pieces = this.orgs.get(org)?.pieces;
    const piece = pieces?.get(key);
    if (piece === undefined || pieces === undefined) return undefined;
    pieces.delete(key);
    pieces.set(key, piece);
    return piece;
  }

  /**
   * epoch is the org's count of late writes so far: an evaluation records it before reading and
   * stores its pieces only if it has not moved (`put` checks), since a late write that landed
   * while it ran may be missing from what it read.
   */
  epoch(org: string): number {
    return this.orgs.get(org)?.epoch ?? 0;
  }

  /**
   * put keeps `piece` under `key` for `org`, replacing what was there, unless the org took a late
   * write since `epoch` or the piece is too large. Returns whether it was kept.
   */
  put(org: string, key: string, piece: CachedPiece, epoch: number): boolean {
    if (piece.bytes > this.maxPieceBytes) return false;
    const data = this.orgData(org);
    if (data.epoch !== epoch) return false;
    this.remove(data, key);
    data.pieces.set(key, piece);
    data.bytes += piece.bytes;
    data.newestDataMs = Math.max(data.newestDataMs, piece.dataToMs);
    this.total += piece.bytes;
    this.count++;
    this.evictOverBudget();
    return true;
  }

  /**
   * lateWrite is told of samples written for `org` between `minMs` and `maxMs`: every piece
   * computed from samples in that range is dropped, and evaluations running now will not store
   * theirs. Returns how many pieces were dropped.
   */
  lateWrite(org: string, minMs: number, maxMs: number): number {
    const data = this.orgData(org);
    data.epoch++;
    if (minMs > data.newestDataMs) return 0;
    let dropped = 0;
    let newest = -Infinity;
    for (const [key, piece] of data.pieces) {
      if (piece.dataFromMs <= maxMs && minMs <= piece.dataToMs) {
        this.remove(data, key);
        dropped++;
      } else {
        newest = Math.max(newest, piece.dataToMs);
      }
    }
    data.newestDataMs = newest;
    if (dropped > 0) this.counters.invalidated(dropped);
    return dropped;
  }

  /**
   * forgetEverything drops every piece, and evaluations running now will not store theirs: what
   * the pieces were computed from may have changed in ways no write reports (a retention change
   * hides data, the retention run then deletes it, and a later change cannot bring it back).
   */
  forgetEverything(): void {
    let dropped = 0;
    for (const data of this.orgs.values()) {
      data.epoch++;
      for (const key of [...data.pieces.keys()]) {
        this.remove(data, key);
        dropped++;
      }
      data.newestDataMs = -Infinity;
    }
    if (dropped > 0) this.counters.invalidated(dropped);
  }

  /** orgBytes is what one org's pieces take. */
  orgBytes(org: string): number {
    return this.orgs.get(org)?.bytes ?? 0;
  }

  /** orgData is the org's record, made on first use and kept (its epoch must never go back), one per org. */
  private orgData(org: string): OrgPieces {
    let data = this.orgs.get(org);
    if (data === undefined) this.orgs.set(org, (data = { pieces: new Map(), bytes: 0, epoch: 0, newestDataMs: -Infinity }));
    return data;
  }

  private remove(data: OrgPieces, key: string): void {
    const old = data.pieces.get(key);
    if (old === undefined) return;
    data.pieces.delete(key);
    data.bytes -= old.bytes;
    this.total -= old.bytes;
    this.count--;
  }

  /** evictOverBudget drops least recently used pieces of the largest org until the cache fits. */
  private evictOverBudget(): void {
    let evicted = 0;
    while (this.total > this.budgetBytes) {
      let largest: OrgPieces | undefined;
      for (const data of this.orgs.values()) if (largest === undefined || data.bytes > largest.bytes) largest = data;
      const oldest = largest?.pieces.keys().next();
      if (largest === undefined || oldest === undefined || oldest.done === true) break;
      this.remove(largest, oldest.value);
      evicted++;
    }
    if (evicted > 0) this.counters.evicted(evicted);
  }
}
