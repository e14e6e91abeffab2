import { Packr } from 'msgpackr';
import type { Labels } from '../storage/labels.js';
import type { LogStreamData } from '../storage/logHead.js';

/**
 * PackedLogs moves log streams between threads as a few buffers: tag sets packed once, all
 * timestamps in one BigInt64Array, and all lines as UTF-8 in one byte buffer with offsets.
 * Transferring them costs nothing per line; the worker decodes each line once, lazily.
 */
export interface PackedLogs {
  tags: Uint8Array;
  /** streamOffsets[i]..streamOffsets[i+1] are stream i's lines. */
  streamOffsets: Uint32Array;
  timestampsNs: BigInt64Array;
  text: Uint8Array;
  /** lineOffsets[j]..lineOffsets[j+1] are line j's bytes in `text`. */
  lineOffsets: Uint32Array;
}

const packr = new Packr({ useRecords: false });
const decoder = new TextDecoder();

export function packLogStreams(streams: readonly LogStreamData[]): PackedLogs {
  let lines = 0;
  let bytes = 0;
  for (const s of streams) {
    lines += s.messages.length;
    for (const m of s.messages) bytes += Buffer.byteLength(m, 'utf8');
  }
  const streamOffsets = new Uint32Array(streams.length + 1);
  const timestampsNs = new BigInt64Array(lines);
  // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool, since it is transferred.
  const text = Buffer.allocUnsafeSlow(bytes);
  const lineOffsets = new Uint32Array(lines + 1);
  let line = 0;
  let at = 0;
  streams.forEach((s, i) => {
    streamOffsets[i] = line;
    timestampsNs.set(s.timestampsNs, line);
    for (const m of s.messages) {
      lineOffsets[line++] = at;
      at += text.write(m, at, 'utf8');
    }
  });
  streamOffsets[streams.length] = line;
  lineOffsets[lines] = at;
  // A copy: pack() answers a view into the packer's reusable buffer.
  const tags = new Uint8Array(packr.pack(streams.map((s) => s.tags)));
  return {
    tags,
    streamOffsets,
    timestampsNs,
    text: new Uint8Array(text.buffer, text.byteOffset, text.byteLength),
    lineOffsets,
  };
}

export function unpackLogStreams(packed: PackedLogs): LogStreamData[] {
  const tags = packr.unpack(packed.tags) as Labels[];
  return tags.map((t, i) => {
    const from = packed.streamOffsets[i];
    const to = packed.streamOffsets[i + 1];
    const messages = new Array<string>(to - from);
    for (let j = from; j < to; j++) messages[j - from] = decoder.decode(packed.text.subarray(packed.lineOffsets[j], packed.lineOffsets[j + 1]));
    return { tags: t, timestampsNs: packed.timestampsNs.subarray(from, to), messages };
  });
}

export function logTransferables(packed: PackedLogs): ArrayBuffer[] {
  const set = new Set<ArrayBuffer>();
  for (const a of [packed.tags, packed.streamOffsets, packed.timestampsNs, packed.text, packed.lineOffsets]) set.add(a.buffer as ArrayBuffer);
  return [...set];
}
