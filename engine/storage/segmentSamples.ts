import { decodeBlockTimestamps, decodeBlockValues, timestampStream } from './sampleBlocks.js';
import { SegmentFormatError } from './segmentFormat.js';
import { ValueFactsMemo } from './valueFacts.js';

/**
 * SegmentSamples gives a metric segment reader one series' timestamps and values by series
 * row, whichever way the file stores them. Arrays handed out are shared and read-only.
 */
export interface SegmentSamples {
  timestamps(series: number): Float64Array;
  values(series: number): Float64Array;
  /** staleFree tells whether none of a series' values is a staleness marker, checked once per series and remembered. */
  staleFree(series: number): boolean;
  /** resetFree tells whether no value of a series is below the one before it (no counter reset), checked with staleFree. */
  resetFree(series: number): boolean;
  /** uncached returns a series' samples without keeping them (compaction reads each series once). */
  uncached(series: number): { timestamps: Float64Array; values: Float64Array };
  /** decodedBytes is the memory held in decoded arrays, on top of the file's bytes. */
  readonly decodedBytes: number;
}

/** ColumnSamples reads version 1 files: every series is a run of the file's plain sample columns, viewed without a copy. */
export class ColumnSamples implements SegmentSamples {
  readonly decodedBytes = 0;
  private readonly facts = new ValueFactsMemo();

  constructor(
    private readonly first: Uint32Array,
    private readonly count: Uint32Array,
    private readonly t: Float64Array,
    private readonly v: Float64Array,
  ) {
    for (let i = 0; i < first.length; i++) {
      if (first[i] + count[i] > t.length) throw new SegmentFormatError(`series ${i} points past the samples table`);
    }
  }

  timestamps(series: number): Float64Array {
    return this.t.subarray(this.first[series], this.first[series] + this.count[series]);
  }

  values(series: number): Float64Array {
    return this.v.subarray(this.first[series], this.first[series] + this.count[series]);
  }

  staleFree(series: number): boolean {
    return this.facts.staleFree(series, () => this.values(series));
  }

  resetFree(series: number): boolean {
    return this.facts.resetFree(series, () => this.values(series));
  }

  uncached(series: number): { timestamps: Float64Array; values: Float64Array } {
    return { timestamps: this.timestamps(series), values: this.values(series) };
  }
}

/**
 * BlockSamples reads version 2 files: each series is a compressed sample block, decoded on
 * first use and kept, so a reader cached across queries decodes each series at most once
 * and afterwards answers as fast as a version 1 reader. Timestamps and values decode
 * separately: deciding whether a series has a sample in a window needs only the former.
 * Series with the same timestamps (every series of one scrape target has its target's) share
 * one decoded timestamp column (SharedTimestamps).
 */
export class BlockSamples implements SegmentSamples {
  private readonly decodedT: (Float64Array | undefined)[];
  private readonly decodedV: (Float64Array | undefined)[];
  private readonly facts = new ValueFactsMemo();
  private readonly sharedTimestamps = new SharedTimestamps();
  private valueBytes = 0;

  constructor(
    private readonly words: Uint32Array,
    private readonly block: Uint32Array,
    private readonly length: Uint32Array,
    private readonly count: Uint32Array,
  ) {
    for (let i = 0; i < block.length; i++) {
      if (block[i] + length[i] > words.length || length[i] === 0) throw new SegmentFormatError(`series ${i}: sample block runs past the samples section`);
    }
    this.decodedT = new Array<Float64Array | undefined>(block.length);
    this.decodedV = new Array<Float64Array | undefined>(block.length);
  }

  private blockOf(series: number): Uint32Array {
    return this.words.subarray(this.block[series], this.block[series] + this.length[series]);
  }

  get decodedBytes(): number {
    return this.sharedTimestamps.bytes + this.valueBytes;
  }

  timestamps(series: number): Float64Array {
    return (this.decodedT[series] ??= this.sharedTimestamps.columnOf(this.blockOf(series), this.count[series]));
  }

  values(series: number): Float64Array {
    let column = this.decodedV[series];
    if (column === undefined) {
      column = this.decodedV[series] = decodeBlockValues(this.blockOf(series), this.count[series]);
      this.valueBytes += column.byteLength;
    }
    return column;
  }

  staleFree(series: number): boolean {
    return this.facts.staleFree(series, () => this.values(series));
  }

  resetFree(series: number): boolean {
    return this.facts.resetFree(series, () => this.values(series));
  }

  uncached(series: number): { timestamps: Float64Array; values: Float64Array } {
    const block = this.blockOf(series);
    return {
      timestamps: this.decodedT[series] ?? decodeBlockTimestamps(block, this.count[series]),
      values: this.decodedV[series] ?? decodeBlockValues(block, this.count[series]),
    };
  }
}

/**
 * SharedTimestamps finds a decoded timestamp column by its encoded stream: equal streams of
 * equal length decode to equal columns, so each distinct one is decoded and held once. A hash
 * of the stream's words picks the candidates, compared word for word; hashing reads a stream
 * about ten times faster than decoding it.
 */
class SharedTimestamps {
  private readonly byHash = new Map<number, { stream: Uint32Array; column: Float64Array }[]>();
  /** bytes is the memory of the columns decoded, each counted once. */
  bytes = 0;

  /** columnOf returns the column of a block's `count` timestamps, decoding it only if no equal stream was decoded before. */
  columnOf(block: Uint32Array, count: number): Float64Array {
    const stream = timestampStream(block);
    const hash = hashWords(stream, count);
    let candidates = this.byHash.get(hash);
    for (const candidate of candidates ?? []) {
      if (candidate.column.length === count && equalWords(candidate.stream, stream)) return candidate.column;
    }
    const column = decodeBlockTimestamps(block, count);
    if (candidates === undefined) this.byHash.set(hash, (candidates = []));
    candidates.push({ stream, column });
    this.bytes += column.byteLength;
    return column;
  }
}

/** hashWords is FNV-1a over a stream's words and a count. */
function hashWords(words: Uint32Array, count: number): number {
  let hash = Math.imul(0x811c9dc5 ^ count, 0x01000193);
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i], 0x01000193);
  return hash;
}

function equalWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** wordsOf views a section as 32-bit words, copying only if the section is not 4-byte aligned. */
export function wordsOf(section: Uint8Array): Uint32Array {
  if (section.byteLength % 4 !== 0) throw new SegmentFormatError('samples section is not a whole number of words');
  if (section.byteOffset % 4 === 0) return new Uint32Array(section.buffer, section.byteOffset, section.byteLength / 4);
  return new Uint32Array(section.slice().buffer);
}
