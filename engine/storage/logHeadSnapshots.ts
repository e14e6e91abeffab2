import { chunkMessage, chunkText, packLogChunk, type HeadRows, type SharedLogChunk } from './logChunk.js';

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
 * LogHeadSnapshots keeps one head's rows packed for worker tasks. A head only grows at its
 * end, so its rows are sealed into immutable chunks as they are appended: a chunk is sealed
 * once its rows reach the limits and is then part of every later snapshot, while the rows
 * after the last sealed chunk (the open tail) are packed only when a snapshot is asked for
 * after an append. Between appends every task of every query gets the same snapshot.
 *
 * The sealed chunks are also where the head keeps those rows' messages: once a row is sealed
 * the head drops its string and reads it back from the chunk (`message`). A head holds up to
 * SVC_HEAD_MAX_BYTES of lines, and as strings on the answering thread's heap every full
 * collection there marked them (a million lines: 65 MB of strings in 400,000 objects), which
 * was a large part of what a big query cost that thread's collector; in shared memory they
 * are one buffer a chunk, and kept once rather than twice.
 *
 * Memory: the sealed chunks (about the size of the head's messages) live as long as the head;
 * of the tails, only the newest is kept here, and an older one lives only while a task that
 * was given it still runs. So the generations alive are bounded by the tasks in flight.
 */
export class LogHeadSnapshots {
  private readonly sealed: SharedLogChunk[] = [];
  /** sealedStarts[i] is the head row where sealed chunk i starts; sealedTexts[i] is a Buffer over its messages. */
  private readonly sealedStarts: number[] = [];
  private readonly sealedTexts: Buffer[] = [];
  /** sealedRows is how many of the head's first rows are sealed; the rest are the open tail. */
  sealedRows = 0;
  /** tailBytes is the UTF-8 size of the open tail's messages. */
  private tailBytes = 0;
  /** lastChunk is the chunk the previous `message` read: reads mostly go row after row. */
  private lastChunk = 0;
  private latest: { rows: number; snapshot: LogHeadSnapshot; tail: SharedLogChunk | undefined } | undefined;
  /** chunksPacked counts every chunk packed (sealed or tail), to tell reuse from repacking. */
  chunksPacked = 0;

  constructor(private readonly limits: ChunkLimits = SNAPSHOT_CHUNK_LIMITS) {}

  /**
   * appended counts the row the head just appended (it now has `rowCount` rows; the new row's
   * message takes `messageBytes` in UTF-8) and seals the open tail when that row brings it to
   * the limits. It answers whether it sealed: the head's strings of the tail are then no longer
   * needed. `rows` is read only to seal.
   */
  appended(rowCount: number, messageBytes: number, rows: () => HeadRows): boolean {
    this.tailBytes += messageBytes;
    if (rowCount - this.sealedRows < this.limits.rows && this.tailBytes < this.limits.bytes) return false;
    const chunk = this.pack(rows(), this.sealedRows, rowCount, this.tailBytes);
    this.sealed.push(chunk);
    this.sealedStarts.push(this.sealedRows);
    this.sealedTexts.push(chunkText(chunk));
    this.sealedRows = rowCount;
    this.tailBytes = 0;
    return true;
  }

  /** snapshot answers the head of `rowCount` rows, reusing the last snapshot when no row was added since. */
  snapshot(rowCount: number, rows: () => HeadRows): LogHeadSnapshot {
    if (this.latest?.rows === rowCount) return this.latest.snapshot;
    const tail = this.sealedRows < rowCount ? this.pack(rows(), this.sealedRows, rowCount, this.tailBytes) : undefined;
    const snapshot = { chunks: tail !== undefined ? [...this.sealed, tail] : [...this.sealed] };
    this.latest = { rows: rowCount, snapshot, tail };
    return snapshot;
  }

  /** sealedChunks are the chunks sealed so far, in row order. */
  get sealedChunks(): readonly SharedLogChunk[] {
    return this.sealed;
  }

  /** message decodes the message of a sealed row (`row` < sealedRows). */
  message(row: number): string {
    let i = this.lastChunk;
    if (i >= this.sealed.length || row < this.sealedStarts[i] || row >= this.sealedStarts[i] + this.sealed[i].rows) {
      // The last chunk starting at or before `row`.
      let lo = 0;
      let hi = this.sealedStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.sealedStarts[mid] <= row) lo = mid;
        else hi = mid - 1;
      }
      this.lastChunk = i = lo;
    }
    return chunkMessage(this.sealed[i], this.sealedTexts[i], row - this.sealedStarts[i]);
  }

  /** packedBytes is the shared memory held here: sealed chunks and the newest tail. */
  get packedBytes(): number {
    let n = this.latest?.tail?.timestampsNs.buffer.byteLength ?? 0;
    for (const c of this.sealed) n += c.timestampsNs.buffer.byteLength;
    return n;
  }

  private pack(head: HeadRows, from: number, to: number, bytes: number): SharedLogChunk {
    this.chunksPacked++;
    return packLogChunk(head, from, to, bytes);
  }
}
