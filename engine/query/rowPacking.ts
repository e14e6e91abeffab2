import { Packr } from 'msgpackr';
import type { Labels } from '../storage/labels.js';

/** MESSAGE is the tag that holds a raw row's line. */
const MESSAGE = 'message';

/**
 * PackedRows carries a raw log query's rows between threads. A row's tags are its stream's
 * tags (often shared by thousands of rows) plus its line: the tag sets without the line are
 * packed once each and rows point at them, and the lines travel as UTF-8 in one buffer. So
 * the cost per row is a few typed-array slots and its line's bytes, never an object.
 */
export interface PackedRows {
  timestampsNs: BigInt64Array;
  /** tagSetIds[i] indexes row i's tags (without `message`) in the packed `tagSets`. */
  tagSetIds: Uint32Array;
  tagSets: Uint8Array;
  /** lineOffsets[i]..lineOffsets[i+1] are row i's line in `lines`; hasLine[i] is 0 when `message` was left out (fields). */
  lines: Uint8Array;
  lineOffsets: Uint32Array;
  hasLine: Uint8Array;
}

/** RawRow is one row as a caller reads it back: the shared tag set without the line, and the line if kept. */
export interface RawRow {
  timestampNs: bigint;
  tags: Labels;
  line: string | undefined;
}

const packr = new Packr({ useRecords: false });
const decoder = new TextDecoder();

/**
 * packRows packs rows whose tags include their line as `message` (unless a field list left it
 * out). Tag sets are told apart by content, since a pipeline builds a fresh object per row.
 */
export function packRows(rows: ReadonlyArray<{ timestampNs: bigint; tags: Labels }>): PackedRows {
  const n = rows.length;
  const timestampsNs = new BigInt64Array(n);
  const tagSetIds = new Uint32Array(n);
  const hasLine = new Uint8Array(n);
  const lineOffsets = new Uint32Array(n + 1);
  const ids = new Map<string, number>();
  const tagSets: Labels[] = [];
  const recent: number[] = [];
  const lines: string[] = new Array(n);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const { timestampNs, tags } = rows[i];
    timestampsNs[i] = timestampNs;
    // Rows of a few streams interleave in time order: comparing with the tag sets seen most
    // recently finds nearly every row's set without building a key.
    let id = -1;
    for (let r = 0; r < recent.length; r++) {
      if (sameTagsBesideLine(tags, tagSets[recent[r]])) {
        id = recent[r];
        break;
      }
    }
    if (id < 0) {
      let key = '';
      for (const name in tags) if (name !== MESSAGE) key += `${name.length}:${name}${tags[name].length}:${tags[name]}`;
      id = ids.get(key) ?? -1;
      if (id < 0) {
        id = tagSets.length;
        ids.set(key, id);
        const rest: Record<string, string> = {};
        for (const name in tags) if (name !== MESSAGE) rest[name] = tags[name];
        tagSets.push(rest);
      }
      recent.unshift(id);
      if (recent.length > RECENT_TAG_SETS) recent.pop();
    }
    tagSetIds[i] = id;
    const line = tags[MESSAGE];
    lines[i] = line ?? '';
    hasLine[i] = line === undefined ? 0 : 1;
    bytes += Buffer.byteLength(lines[i], 'utf8');
  }
  // allocUnsafeSlow: a buffer of its own (never a slice of Node's pool), since it is transferred.
  const text = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (let i = 0; i < n; i++) {
    lineOffsets[i] = at;
    at += text.write(lines[i], at, 'utf8');
  }
  lineOffsets[n] = at;
  return {
    timestampsNs,
    tagSetIds,
    // A copy: pack() answers a view into the packer's reusable buffer.
    tagSets: new Uint8Array(packr.pack(tagSets)),
    lines: new Uint8Array(text.buffer, text.byteOffset, text.byteLength),
    lineOffsets,
    hasLine,
  };
}

/** RECENT_TAG_SETS is how many recently seen tag sets a row is compared with before its key is built. */
const RECENT_TAG_SETS = 8;

/** sameTagsBesideLine says whether a row's tags, `message` aside, are exactly `set`. */
function sameTagsBesideLine(tags: Labels, set: Labels): boolean {
  let n = 0;
  for (const name in tags) {
    if (name === MESSAGE) continue;
    if (set[name] !== tags[name]) return false;
    n++;
  }
  for (const _ in set) n--;
  return n === 0;
}

/** rowsTransferables lists the buffers to move with packed rows. */
export function rowsTransferables(rows: PackedRows): ArrayBuffer[] {
  return [rows.timestampsNs, rows.tagSetIds, rows.tagSets, rows.lines, rows.lineOffsets, rows.hasLine].map((a) => a.buffer as ArrayBuffer);
}

/** packedRowsBytes is the size of packed rows, what holding them costs before they are read back. */
export function packedRowsBytes(rows: PackedRows): number {
  return rows.timestampsNs.byteLength + rows.tagSetIds.byteLength + rows.tagSets.byteLength + rows.lines.byteLength + rows.lineOffsets.byteLength + rows.hasLine.byteLength;
}

/** unpackRows reads rows back; rows of one tag set share the same tags object. */
export function unpackRows(packed: PackedRows): RawRow[] {
  const tagSets = packr.unpack(packed.tagSets) as Labels[];
  const out = new Array<RawRow>(packed.timestampsNs.length);
  for (let i = 0; i < out.length; i++) {
    const line = packed.hasLine[i] ? decoder.decode(packed.lines.subarray(packed.lineOffsets[i], packed.lineOffsets[i + 1])) : undefined;
    out[i] = { timestampNs: packed.timestampsNs[i], tags: tagSets[packed.tagSetIds[i]], line };
  }
  return out;
}

/** withLine is a row's full tags as the query produced them: the shared tags plus `message`. */
export function withLine(row: RawRow): Labels {
  return row.line === undefined ? row.tags : { ...row.tags, [MESSAGE]: row.line };
}
