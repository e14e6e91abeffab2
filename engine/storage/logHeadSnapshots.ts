import { packLogChunk, type HeadRows, type SharedLogChunk } from './logChunk.js';

/**
 * LogHeadSnapshot is a log head as of one moment, as worker tasks read it: its rows in
 * arrival order, cut into chunks of shared memory. Posting it to a worker copies no row.
 */
export interface LogHeadSnapshot {
  chunks: readonly SharedLogChunk[];
}

/** ChunkLimits say when a run of rows is big enough to be sealed into a chunk of its own. */
export interface ChunkLimits {
  rows: number;
  /** bytes is the UTF-8 size of the messages at which a chunk is sealed. */
  bytes: number;
}

/**
 * SNAPSHOT_CHUNK_LIMITS keep a chunk small enough that repacking the open tail after an append
 * is cheap, and big enough that a head of a few GiB is a few hundred chunks.
 */
export const SNAPSHOT_CHUNK_LIMITS: ChunkLimits = { rows: 16_384, bytes: 8 * 1024 * 1024 };

/**
 * LogHeadSnapshots packs one head for worker tasks, once. A head only grows at its end, so
 * its rows are packed in immutable chunks: a chunk is sealed once it reaches its limits and is
 * then part of every later snapshot, while the rows after the last sealed chunk (the open
 * tail) are packed again only when the head has taken appends since the previous snapshot.
 * Between appends every task of every query gets the same snapshot.
 *
 * Memory: the sealed chunks (about the size of the head's messages) live as long as the head;
 * of the tails, only the newest is kept here, and an older one lives only while a task that
 * was given it still runs. So the generations alive are bounded by the tasks in flight.
 */
export class LogHeadSnapshots {
  private readonly sealed: SharedLogChunk[] = [];
  private sealedRows = 0;
  private latest: { rows: number; snapshot: LogHeadSnapshot } | undefined;
  /** chunksPacked counts every chunk packed (sealed or tail), to tell reuse from repacking. */
  chunksPacked = 0;

  constructor(private readonly limits: ChunkLimits = SNAPSHOT_CHUNK_LIMITS) {}

  /** snapshot answers the head of `rowCount` rows, reusing the last snapshot when no row was added since. */
  snapshot(rowCount: number, rows: () => HeadRows): LogHeadSnapshot {
    if (this.latest?.rows === rowCount) return this.latest.snapshot;
    const head = rows();
    let from = this.sealedRows;
    let bytes = 0;
    for (let row = from; row < rowCount; row++) {
      bytes += Buffer.byteLength(head.message(row), 'utf8');
      if (row + 1 - from >= this.limits.rows || bytes >= this.limits.bytes) {
        this.sealed.push(this.pack(head, from, row + 1, bytes));
        from = row + 1;
        bytes = 0;
      }
    }
    this.sealedRows = from;
    const chunks = from < rowCount ? [...this.sealed, this.pack(head, from, rowCount, bytes)] : [...this.sealed];
    const snapshot = { chunks };
    this.latest = { rows: rowCount, snapshot };
    return snapshot;
  }

  /** packedBytes is the shared memory held here: sealed chunks and the newest tail. */
  get packedBytes(): number {
    let n = 0;
    for (const c of this.latest?.snapshot.chunks ?? this.sealed) n += c.timestampsNs.buffer.byteLength;
    return n;
  }

  private pack(head: HeadRows, from: number, to: number, bytes: number): SharedLogChunk {
    this.chunksPacked++;
    return packLogChunk(head, from, to, bytes);
  }
}
