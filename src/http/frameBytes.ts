import { batchBuffer, spareBatch } from './batchBuffers.js';
import { PIECE_BYTES, type FramedEvents } from './sse.js';

/** BASE64 is the base64 alphabet (RFC 4648 section 4) as byte values. */
const BASE64 = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
const PAD = 0x3d;
/** BASE64_LOOP_MAX_BYTES is the longest run putBase64 encodes itself. */
const BASE64_LOOP_MAX_BYTES = 512;

const EMPTY_BATCH: Buffer = Buffer.alloc(0);

/**
 * FrameBytesBatcher writes framed events straight into bytes, in batches of about `batchBytes`,
 * for producers whose events are mostly constant pieces (a series' head and tail, encoded once)
 * around a few numbers. Joining strings per event made a rope the stream then had to flatten
 * and encode as UTF-8: for 241,000 point events (48 MB) that flattening was 84 ms of the
 * answering thread's 140, more than rendering them.
 *
 * An event is written with `room` (its most bytes), then `put`/`putAscii`/`putText`, then
 * `ended`. Every batch is a buffer of its own until the stream, once the socket or the
 * compressor has taken it, gives it back (releaseChunks).
 */
export class FrameBytesBatcher {
  private bytes: Buffer = EMPTY_BATCH;
  private at = 0;
  private count = 0;
  /** bufferBytes is a batch buffer's size: a batch and room for the event that ends it. */
  private readonly bufferBytes: number;

  /** `batchBytes` is about how much a batch holds: what the stream takes at a time (SseStream.batchBytes). */
  constructor(private readonly batchBytes = PIECE_BYTES) {
    this.bufferBytes = batchBytes + batchBytes / 4;
  }

  /** room makes sure `bytes` more bytes fit in the batch. */
  room(bytes: number): void {
    if (this.at + bytes <= this.bytes.length) return;
    const need = this.at + bytes;
    // An event beyond a batch buffer (a long histogram's text) gets a buffer of its own size.
    const grown = need <= this.bufferBytes ? batchBuffer(this.bufferBytes) : Buffer.allocUnsafeSlow(need);
    this.bytes.copy(grown, 0, 0, this.at);
    // The old buffer was never handed out (take makes a new batch), so it can go straight back.
    spareBatch(this.bytes);
    this.bytes = grown;
  }

  /** put copies bytes. */
  put(bytes: Uint8Array): void {
    this.bytes.set(bytes, this.at);
    this.at += bytes.length;
  }

  /**
   * putAscii copies characters `from` to `to` of a text known to be ASCII (number text), one
   * byte each: for the few characters of a number a loop is cheaper than a call into Buffer.
   */
  putAscii(text: string, from: number, to: number): void {
    const bytes = this.bytes;
    let at = this.at;
    for (let i = from; i < to; i++) bytes[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /**
   * putBase64 writes bytes `from` to `to` of `data` in padded base64; `room` must have allowed
   * 4 bytes for every 3. Short runs (a few doubles) are encoded here, which costs less than a
   * base64 string made and copied; long ones go through Buffer's encoder.
   */
  putBase64(data: Uint8Array, from = 0, to = data.length): void {
    if (to - from > BASE64_LOOP_MAX_BYTES) {
      const text = Buffer.from(data.buffer, data.byteOffset + from, to - from).toString('base64');
      this.at += this.bytes.write(text, this.at, 'latin1');
      return;
    }
    const bytes = this.bytes;
    let at = this.at;
    const whole = to - ((to - from) % 3);
    for (let i = from; i < whole; i += 3) {
      const n = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      bytes[at++] = BASE64[n >>> 18];
      bytes[at++] = BASE64[(n >>> 12) & 63];
      bytes[at++] = BASE64[(n >>> 6) & 63];
      bytes[at++] = BASE64[n & 63];
    }
    const left = to - whole;
    if (left > 0) {
      const n = (data[whole] << 16) | (left === 2 ? data[whole + 1] << 8 : 0);
      bytes[at++] = BASE64[n >>> 18];
      bytes[at++] = BASE64[(n >>> 12) & 63];
      bytes[at++] = left === 2 ? BASE64[(n >>> 6) & 63] : PAD;
      bytes[at++] = PAD;
    }
    this.at = at;
  }

  /** putText writes any text as UTF-8; `room` must have allowed three bytes a character. */
  putText(text: string): void {
    this.at += this.bytes.write(text, this.at);
  }

  /** ended counts an event written; it returns the batch once the batch is a piece long. */
  ended(): FramedEvents | undefined {
    this.count++;
    return this.at >= this.batchBytes ? this.take() : undefined;
  }

  /** take hands over what was written, if anything. */
  take(): FramedEvents | undefined {
    if (this.count === 0) return undefined;
    const batch = { framed: this.bytes.subarray(0, this.at), count: this.count };
    this.bytes = EMPTY_BATCH;
    this.at = 0;
    this.count = 0;
    return batch;
  }
}
