import { crc32 } from 'node:zlib';

/**
 * A segment file wraps one or more Arrow IPC files ("sections") in a small header:
 *
 *     0  magic "SLSEG\0\0\0"      8 bytes
 *     8  crc32 of bytes 12..end   u32 LE
 *    12  format version           u32 LE
 *    16  section count            u32 LE
 *    20  reserved (0)             u32 LE
 *    24  section lengths          u32 LE each, then zero padding to a multiple of 8
 *
 * and then the sections, each padded to a multiple of 8 bytes. Keeping every section 8-byte
 * aligned lets Arrow hand out Float64Array and BigInt64Array views straight into the file's
 * bytes instead of copying them; the checksum catches a flipped byte anywhere after it.
 *
 * The version says how the sections are laid out. Version 1 is plain Arrow columns (log
 * segments, and metric segments written before version 2); version 2 metric segments hold
 * compressed sample blocks (metricSegment.ts), and version 3 metric segments add a section of
 * native histogram blocks to version 2's layout. Readers accept every version up to
 * LATEST_SEGMENT_FORMAT_VERSION and decide by the version they are given.
 */

export const SEGMENT_FORMAT_VERSION = 1;
export const LATEST_SEGMENT_FORMAT_VERSION = 3;
const MAGIC = Uint8Array.from([0x53, 0x4c, 0x53, 0x45, 0x47, 0, 0, 0]);
const FIXED_HEADER = 24;
/** MAX_SECTIONS bounds the header so a damaged count cannot make the reader loop for long. */
const MAX_SECTIONS = 16;

/** SegmentFormatError says a segment's bytes are not a readable segment (damaged, truncated, or too new). */
export class SegmentFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SegmentFormatError';
  }
}

function pad8(n: number): number {
  return (n + 7) & ~7;
}

function headerBytes(sections: number): number {
  return pad8(FIXED_HEADER + 4 * sections);
}

/** encodeSegmentFile frames the sections with the header and returns the file's bytes and checksum. */
export function encodeSegmentFile(sections: readonly Uint8Array[], version = SEGMENT_FORMAT_VERSION): { bytes: Uint8Array; crc: number } {
  const header = headerBytes(sections.length);
  let total = header;
  for (const s of sections) total += pad8(s.length);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  view.setUint32(12, version, true);
  view.setUint32(16, sections.length, true);
  let at = header;
  sections.forEach((s, i) => {
    view.setUint32(FIXED_HEADER + 4 * i, s.length, true);
    bytes.set(s, at);
    at += pad8(s.length);
  });
  const crc = crc32(bytes.subarray(12));
  view.setUint32(8, crc, true);
  return { bytes, crc };
}

/**
 * ChecksumPolicy says whether decoding recomputes the checksum over the whole file ('verify'),
 * or trusts bytes another thread already verified ('trusted'): a worker handed a segment the
 * query front opened skips a pass over every byte.
 */
export type ChecksumPolicy = 'verify' | 'trusted';

/**
 * decodeSegmentFile checks magic, checksum and version and returns views of the sections (no
 * copy). `expectedCrc`, when given, must also match: it is the checksum the catalog recorded,
 * so a file swapped for another intact segment is caught too.
 */
export function decodeSegmentFile(bytes: Uint8Array, expectedCrc?: number, checksum: ChecksumPolicy = 'verify'): Uint8Array[] {
  return readSegmentFile(bytes, expectedCrc, checksum).sections;
}

/** readSegmentFile is decodeSegmentFile that also returns the file's format version. */
export function readSegmentFile(bytes: Uint8Array, expectedCrc?: number, checksum: ChecksumPolicy = 'verify'): { version: number; sections: Uint8Array[] } {
  if (bytes.length < FIXED_HEADER) throw new SegmentFormatError(`file too short (${bytes.length} bytes)`);
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) throw new SegmentFormatError('not a segment file (bad magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stored = view.getUint32(8, true);
  if (checksum === 'verify') {
    const actual = crc32(bytes.subarray(12));
    if (stored !== actual) throw new SegmentFormatError(`checksum mismatch (stored ${stored}, computed ${actual})`);
  }
  if (expectedCrc !== undefined && expectedCrc !== stored) {
    throw new SegmentFormatError(`checksum ${stored} differs from the catalog's ${expectedCrc}`);
  }
  const version = view.getUint32(12, true);
  if (version < 1 || version > LATEST_SEGMENT_FORMAT_VERSION) throw new SegmentFormatError(`unsupported segment format version ${version}`);
  const count = view.getUint32(16, true);
  if (count > MAX_SECTIONS) throw new SegmentFormatError(`implausible section count ${count}`);
  const header = headerBytes(count);
  const sections: Uint8Array[] = [];
  let at = header;
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(FIXED_HEADER + 4 * i, true);
    if (at + length > bytes.length) throw new SegmentFormatError(`section ${i} runs past the end of the file`);
    sections.push(bytes.subarray(at, at + length));
    at += pad8(length);
  }
  return { version, sections };
}
