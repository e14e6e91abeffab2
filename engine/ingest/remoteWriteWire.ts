/**
 * Wire pieces remote write 1.0 and 2.0 have in common: the snappy framing of the body and the
 * Sample message (value and timestamp are fields 1 and 2 in both; 2.0 adds the start, i.e.
 * created, timestamp as field 3, which 1.0 never sends).
 */
import { withContext } from './errors.js';
import { ProtoReader, WIRE_FIXED64, WIRE_VARINT, fieldTag } from './protobuf.js';
import { STALE_NAN_HI, STALE_NAN_LO, type RemoteWriteAssembler, type RemoteWriteOptions, type RemoteWriteResult } from './remoteWriteAssembler.js';
import { snappyDecompress } from './snappy.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from './types.js';

const SAMPLE_VALUE = fieldTag(1, WIRE_FIXED64);
const SAMPLE_TIMESTAMP = fieldTag(2, WIRE_VARINT);
const SAMPLE_START_TIMESTAMP = fieldTag(3, WIRE_VARINT);

/** decodeSnappyBody unpacks a snappy body (bounded by `maxDecompressedBytes`) and decodes the message in it. */
export function decodeSnappyBody(body: Uint8Array, opts: RemoteWriteOptions, decodeRaw: (raw: Uint8Array, opts: RemoteWriteOptions) => RemoteWriteResult): RemoteWriteResult {
  const maxBytes = opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const raw = withContext('invalid remote write body', () => snappyDecompress(body, maxBytes));
  return decodeRaw(raw, opts);
}

/**
 * readSample reads one Sample message ending at `end` into the assembler. Staleness markers
 * (the NaN with bits 0x7ff0000000000002) are recognized from the raw 64 bits.
 */
export function readSample(r: ProtoReader, end: number, out: RemoteWriteAssembler): void {
  let value = 0;
  let stale = false;
  let timestamp = 0;
  let start = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === SAMPLE_VALUE) {
      const valueAt = r.pos;
      r.fixed64();
      value = r.view.getFloat64(valueAt, true);
      stale = r.hi === STALE_NAN_HI && r.lo === STALE_NAN_LO;
    } else if (t === SAMPLE_TIMESTAMP) {
      timestamp = r.int64Number();
    } else if (t === SAMPLE_START_TIMESTAMP) {
      start = r.int64Number();
    } else {
      r.skip(t);
    }
  }
  r.checkEnd(end);
  out.sample(timestamp, value, stale);
  if (start !== 0) out.created(start);
}
