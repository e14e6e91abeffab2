import { labelsKey, type Labels } from './labels.js';
import { markContainingByOffsets } from './lineMatch.js';

/**
 * SharedLogChunk is an immutable run of a log head's rows, packed into one SharedArrayBuffer:
 * posting it to a worker shares the bytes, as segment files are shared, so any number of
 * tasks over the head read the same memory. Rows keep their arrival order; each row names
 * its group, a distinct full tag set, whose tags are packed once per chunk.
 */
export interface SharedLogChunk {
  /** id is unique within the process: workers key what they decode from a chunk by it. */
  id: string;
  rows: number;
  minNs: bigint;
  maxNs: bigint;
  /** inOrder is true when no row is older than the one before, so a window is found by binary search. */
  inOrder: boolean;
  timestampsNs: BigInt64Array;
  /** groups[i] is row i's index into the chunk's tag sets. */
  groups: Uint32Array;
  /** lineOffsets[i]..lineOffsets[i+1] are row i's message bytes in `text` (UTF-8). */
  lineOffsets: Uint32Array;
  text: Uint8Array;
  /**
   * ascii is true when every message is ASCII, so a byte offset into `text` is also a character
   * offset into its text decoded whole (SnapshotLogReader decodes a chunk once and takes
   * substrings when a selection reads much of it). Absent means not known.
   */
  ascii?: boolean;
  /**
   * groupTags is the chunk's tag sets as UTF-8 JSON, in group order. Not msgpack: its native
   * decoder must not be handed shared memory, while Buffer and JSON.parse read it safely.
   */
  groupTags: Uint8Array;
}

/**
 * HeadRows is a read-only look at a log head's columns, in arrival order, for packing. The
 * arrays are valid only until the head's next append, so a packer reads them synchronously.
 */
export interface HeadRows {
  timestampsNs: BigInt64Array;
  /** groupIds[i] is a number that is equal for two rows exactly when they share stream, level and attributes. */
  groupIds: (row: number) => number;
  /** tagsOf is a row's full tag set. */
  tagsOf: (row: number) => Labels;
  message: (row: number) => string;
}

let chunkSeq = 0;

/** align8 rounds a byte offset up so a 64-bit view may start there. */
const align8 = (n: number): number => (n + 7) & ~7;

/**
 * packLogChunk packs rows [from, to) of a head. `textBytes` is the UTF-8 size of their
 * messages (the caller measured it choosing where the chunk ends). Everything lands in one
 * SharedArrayBuffer, allocated once at its final size.
 */
export function packLogChunk(head: HeadRows, from: number, to: number, textBytes: number): SharedLogChunk {
  const rows = to - from;
  // Groups: a (stream, level, attributes) id decides its tag set once; ids rendering to the
  // same tag set (an attribute `level` shadowed by the level column) share one group.
  const groupOfId = new Map<number, number>();
  const groupOfKey = new Map<string, number>();
  const tagSets: Labels[] = [];
  const groups = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) {
    const row = from + i;
    const id = head.groupIds(row);
    let group = groupOfId.get(id);
    if (group === undefined) {
      const tags = head.tagsOf(row);
      const key = labelsKey(tags);
      group = groupOfKey.get(key);
      if (group === undefined) {
        group = tagSets.length;
        tagSets.push(tags);
        groupOfKey.set(key, group);
      }
      groupOfId.set(id, group);
    }
    groups[i] = group;
  }
  const groupTagBytes = Buffer.from(JSON.stringify(tagSets), 'utf8');

  const tsAt = 0;
  const groupsAt = tsAt + rows * 8;
  const offsetsAt = groupsAt + rows * 4;
  const tagsAt = offsetsAt + (rows + 1) * 4;
  const textAt = tagsAt + groupTagBytes.length;
  const shared = new SharedArrayBuffer(align8(textAt + textBytes));
  const chunk: SharedLogChunk = {
    id: `log-chunk-${++chunkSeq}`,
    rows,
    minNs: 0n,
    maxNs: 0n,
    inOrder: true,
    timestampsNs: new BigInt64Array(shared, tsAt, rows),
    groups: new Uint32Array(shared, groupsAt, rows),
    lineOffsets: new Uint32Array(shared, offsetsAt, rows + 1),
    groupTags: new Uint8Array(shared, tagsAt, groupTagBytes.length),
    text: new Uint8Array(shared, textAt, textBytes),
  };
  chunk.groups.set(groups);
  chunk.groupTags.set(groupTagBytes);
  chunk.timestampsNs.set(head.timestampsNs.subarray(from, to));
  const text = Buffer.from(shared, textAt, textBytes);
  let at = 0;
  let chars = 0;
  for (let i = 0; i < rows; i++) {
    chunk.lineOffsets[i] = at;
    const message = head.message(from + i);
    chars += message.length;
    at += text.write(message, at, 'utf8');
  }
  chunk.lineOffsets[rows] = at;
  // Any character past ASCII takes more than one byte (a lone surrogate three, as U+FFFD).
  chunk.ascii = at === chars;
  if (rows > 0) {
    const ts = chunk.timestampsNs;
    let min = ts[0];
    let max = ts[0];
    for (let i = 1; i < rows; i++) {
      const t = ts[i];
      if (t < max) chunk.inOrder = false;
      else max = t;
      if (t < min) min = t;
    }
    chunk.minNs = min;
    chunk.maxNs = max;
  }
  return chunk;
}

/** unpackGroupTags reads a chunk's tag sets back. */
export function unpackGroupTags(chunk: SharedLogChunk): Labels[] {
  return JSON.parse(Buffer.from(chunk.groupTags.buffer, chunk.groupTags.byteOffset, chunk.groupTags.byteLength).toString('utf8')) as Labels[];
}

/** chunkText is a Buffer over a chunk's messages (a view of the shared bytes), to decode rows with chunkMessage. */
export function chunkText(chunk: SharedLogChunk): Buffer {
  return Buffer.from(chunk.text.buffer, chunk.text.byteOffset, chunk.text.byteLength);
}

/** chunkRowsContaining marks in `hits` (offset 0 = row `from`) the rows of [from, end) whose message contains `needle`. */
export function chunkRowsContaining(chunk: SharedLogChunk, text: Buffer, from: number, end: number, needle: Buffer, hits: Uint8Array): void {
  markContainingByOffsets(text, chunk.lineOffsets, from, end, needle, hits);
}

/** chunkMessage decodes one row's message from the chunk's text. */
export function chunkMessage(chunk: SharedLogChunk, text: Buffer, row: number): string {
  return text.toString('utf8', chunk.lineOffsets[row], chunk.lineOffsets[row + 1]);
}
