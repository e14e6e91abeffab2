import { isAscii } from 'node:buffer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { markContaining } from './lineMatch.js';
import { SegmentFormatError } from './segmentFormat.js';
import type { AsciiLine } from './logLineScan.js';

/**
 * Log lines of a version 2 log segment, compressed in blocks. Messages are concatenated as
 * UTF-8 in row order (time order) and cut into blocks of about MESSAGE_BLOCK_BYTES, each ending on a
 * row, each compressed with raw deflate on its own. A line filter walks rows in time order,
 * so it inflates blocks one after another, each once: the reader keeps inflated blocks (and
 * counts them in its size), and a count that needs no line inflates nothing.
 *
 * Stored as three columns: `messageEnd` per row (end of the row's message in the
 * concatenation; a row starts where the previous one ended), and per block `rowEnd` (rows
 * before the block's end) and `compressedEnd` (end of the block in the compressed bytes).
 */

/** MESSAGE_BLOCK_BYTES balances ratio (deflate sees more repetition) against what one line read inflates. */
export const MESSAGE_BLOCK_BYTES = 64 * 1024;

export interface EncodedMessages {
  messageEnd: Uint32Array;
  rowEnd: Uint32Array;
  compressedEnd: Uint32Array;
  compressed: Uint8Array;
}

/** encodeMessages compresses messages (row order) into blocks. */
export function encodeMessages(messages: readonly string[]): EncodedMessages {
  const messageEnd = new Uint32Array(messages.length);
  const rowEnds: number[] = [];
  const parts: Buffer[] = [];
  let total = 0;
  let blockStart = 0;
  let blockText: string[] = [];
  let blockBytes = 0;
  const close = (row: number): void => {
    parts.push(deflateRawSync(Buffer.from(blockText.join(''), 'utf8')));
    rowEnds.push(row);
    blockText = [];
    blockBytes = 0;
  };
  for (let i = 0; i < messages.length; i++) {
    const bytes = Buffer.byteLength(messages[i], 'utf8');
    total += bytes;
    if (total > 0x7fffffff) throw new RangeError('log segment messages exceed 2 GiB');
    messageEnd[i] = total;
    blockText.push(messages[i]);
    blockBytes += bytes;
    if (blockBytes >= MESSAGE_BLOCK_BYTES) {
      close(i + 1);
      blockStart = i + 1;
    }
  }
  if (blockStart < messages.length || messages.length === 0) close(messages.length);
  const compressedEnd = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, b) => (compressedEnd[b] = at += p.length));
  const compressed = new Uint8Array(at);
  at = 0;
  for (const p of parts) {
    compressed.set(p, at);
    at += p.length;
  }
  return { messageEnd, rowEnd: Uint32Array.from(rowEnds), compressedEnd, compressed };
}

/** MessageBlocks reads single messages, inflating each block on first use and keeping it. */
export class MessageBlocks {
  private readonly inflated: (Buffer | undefined)[];
  /** asciiBlocks marks each inflated block whose bytes are all ASCII (1) or not (2): ASCII lines decode as latin1, without UTF-8's checks. */
  private readonly asciiBlocks: Uint8Array;
  private current = 0;
  decodedBytes = 0;

  constructor(
    private readonly messageEnd: Uint32Array,
    private readonly rowEnd: Uint32Array,
    private readonly compressedEnd: Uint32Array,
    private readonly compressed: Uint8Array,
  ) {
    if (rowEnd.length !== compressedEnd.length || rowEnd.length === 0) throw new SegmentFormatError('message blocks: block table is malformed');
    if (rowEnd[rowEnd.length - 1] !== messageEnd.length) throw new SegmentFormatError('message blocks do not cover every row');
    if (compressedEnd[compressedEnd.length - 1] > compressed.length) throw new SegmentFormatError('message blocks run past their section');
    for (let b = 1; b < rowEnd.length; b++) {
      if (rowEnd[b] < rowEnd[b - 1] || compressedEnd[b] < compressedEnd[b - 1]) throw new SegmentFormatError('message blocks out of order');
    }
    this.inflated = new Array<Buffer | undefined>(rowEnd.length);
    this.asciiBlocks = new Uint8Array(rowEnd.length);
  }

  /** blockOf finds the block holding `row`; rows are mostly read in order, so the last block is tried first. */
  private blockOf(row: number): number {
    const c = this.current;
    if (row < this.rowEnd[c] && (c === 0 || row >= this.rowEnd[c - 1])) return c;
    let lo = 0;
    let hi = this.rowEnd.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rowEnd[mid] > row) hi = mid;
      else lo = mid + 1;
    }
    this.current = lo;
    return lo;
  }

  private text(block: number): Buffer {
    let text = this.inflated[block];
    if (text === undefined) {
      const from = block === 0 ? 0 : this.compressedEnd[block - 1];
      try {
        text = inflateRawSync(this.compressed.subarray(from, this.compressedEnd[block]));
      } catch (err) {
        throw new SegmentFormatError(`message block ${block} does not inflate: ${err instanceof Error ? err.message : String(err)}`);
      }
      this.inflated[block] = text;
      this.asciiBlocks[block] = isAscii(text) ? 1 : 2;
      this.decodedBytes += text.byteLength;
    }
    return text;
  }

  /**
   * markContaining marks in `hits` (offset 0 = row `from`) the rows of [from, end) whose text
   * contains `needle`, searching each block's inflated bytes once (blocks end on rows, so no
   * line is split between two).
   */
  markContaining(from: number, end: number, needle: Buffer, hits: Uint8Array): void {
    if (end <= from) return;
    for (let block = this.blockOf(from); block < this.rowEnd.length; block++) {
      const firstRow = block === 0 ? 0 : this.rowEnd[block - 1];
      if (firstRow >= end) return;
      const lo = Math.max(from, firstRow);
      const hi = Math.min(end, this.rowEnd[block]);
      if (hi <= lo) continue;
      const blockBase = firstRow === 0 ? 0 : this.messageEnd[firstRow - 1];
      const startByte = (lo === 0 ? 0 : this.messageEnd[lo - 1]) - blockBase;
      const endByte = this.messageEnd[hi - 1] - blockBase;
      const text = this.text(block).subarray(startByte, endByte);
      markContaining({ text, ends: this.messageEnd, endsAt: lo, base: blockBase + startByte, count: hi - lo }, needle, hits, lo - from);
    }
  }

  /** blockStart and blockEnd bound the rows of `row`'s block: a line filter searches a block's rows at once. */
  blockStart(row: number): number {
    const block = this.blockOf(row);
    return block === 0 ? 0 : this.rowEnd[block - 1];
  }

  blockEnd(row: number): number {
    return this.rowEnd[this.blockOf(row)];
  }

  /**
   * asciiLine points `line` at the bytes of `row` when its block is ASCII and returns true;
   * for a block with other characters it returns false (read the row with get()).
   */
  asciiLine(row: number, line: AsciiLine): boolean {
    const block = this.blockOf(row);
    const text = this.text(block);
    if (this.asciiBlocks[block] !== 1) return false;
    const firstRow = block === 0 ? 0 : this.rowEnd[block - 1];
    const base = firstRow === 0 ? 0 : this.messageEnd[firstRow - 1];
    line.bytes = text;
    line.start = (row === 0 ? 0 : this.messageEnd[row - 1]) - base;
    line.end = this.messageEnd[row] - base;
    return true;
  }

  get(row: number): string {
    const block = this.blockOf(row);
    const firstRow = block === 0 ? 0 : this.rowEnd[block - 1];
    const base = firstRow === 0 ? 0 : this.messageEnd[firstRow - 1];
    const start = row === 0 ? 0 : this.messageEnd[row - 1];
    const text = this.text(block);
    return text.toString(this.asciiBlocks[block] === 1 ? 'latin1' : 'utf8', start - base, this.messageEnd[row] - base);
  }
}
