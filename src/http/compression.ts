import zlib from 'node:zlib';

/** ContentEncoding is a compression the service answers in, when the client accepts it. */
export type ContentEncoding = 'br' | 'gzip';

/**
 * MIN_COMPRESSED_BYTES is the smallest body worth compressing, a JSON answer or an event stream
 * that ends at once: below about a packet the compressor's framing and CPU buy nothing, and the
 * client's decompressor costs more than the bytes (Node's fetch took 0.7 ms longer for a
 * one-event stream gzipped than sent as is, measured on loopback).
 */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Levels: the fastest of each. Result text repeats its tags and labels, so even the fastest
 * settings shrink it about 21 times, while higher ones buy a few per cent for several times the
 * CPU, which under dashboard load is taken from query evaluation. Measured on 13.7 MB of SSE
 * result events (minimum of 7 runs, one process): gzip 1 at 305 MB/s for 20.8x against gzip 5 at
 * 112 MB/s for 22.5x; brotli 1 at 430 MB/s for 21.2x against brotli 5 at 32 MB/s for 23.8x.
 */
const GZIP_LEVEL = 1;
const BROTLI_QUALITY = 1;

/**
 * negotiateEncoding picks the response's encoding from Accept-Encoding (RFC 9110 12.5.3): the
 * accepted coding with the highest q, br before gzip on a tie; `*` stands for either; q=0
 * refuses. Undefined means identity.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key === 'q') q = Number(value);
    }
    weights.set(name, Number.isFinite(q) ? q : 0);
  }
  const weightOf = (name: ContentEncoding): number => weights.get(name) ?? weights.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).reduce<ContentEncoding | undefined>((chosen, name) => (weightOf(name) > (chosen === undefined ? 0 : weightOf(chosen)) ? name : chosen), undefined);
  return best;
}

/**
 * MIN_OFF_LOOP_BYTES is the smallest body compressed on libuv's thread pool rather than on the
 * event loop: a round trip to the pool costs tens of microseconds, while compressing a
 * 1,000-series Prometheus API answer (8 MB) on the loop held every other request back about
 * 30 ms.
 */
export const MIN_OFF_LOOP_BYTES = 256 * 1024;

/**
 * utf8Bytes encodes text as UTF-8 for a compressor. The compressors' own conversion
 * (Buffer.from) measures the encoded length before writing; writing straight into a buffer of
 * the text's length skips that where the text is all ASCII, as result events mostly are
 * (bench/query/compression.bench.ts: 0.92x the time for a 1 MiB piece of default events).
 * Text with other characters does not fit that buffer, and is converted the usual way.
 */
export function utf8Bytes(text: string): Buffer {
  // Every character beyond ASCII takes more than one byte, so the text fits in its own
  // length (written === length) exactly when it is ASCII; four spare bytes let a longer text
  // show itself by writing past its length rather than stopping at it.
  const bytes = Buffer.allocUnsafe(text.length + 4);
  const written = bytes.write(text);
  return written === text.length ? bytes.subarray(0, written) : Buffer.from(text);
}

/** codingOptions are each coding's settings for a whole body (`chunkSize` is its output buffer). */
function codingOptions(encoding: ContentEncoding, chunkSize?: number): zlib.ZlibOptions & zlib.BrotliOptions {
  return encoding === 'br' ? { chunkSize, params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } } : { chunkSize, level: GZIP_LEVEL };
}

/** compressBody compresses a whole response body at once. */
export function compressBody(text: string | Uint8Array, encoding: ContentEncoding): Buffer {
  const body = typeof text === 'string' ? utf8Bytes(text) : text;
  return encoding === 'br' ? zlib.brotliCompressSync(body, codingOptions(encoding)) : zlib.gzipSync(body, codingOptions(encoding));
}

/**
 * OFF_LOOP_CHUNK_BYTES is the output buffer of an off-loop compression: the pool hands each
 * full buffer back to the event loop, so with the default 16 KiB an 8 MB body made over a
 * hundred round trips and cost more event-loop time than compressing it there.
 */
const OFF_LOOP_CHUNK_BYTES = 1024 * 1024;

/** compressBodyOffLoop compresses a whole response body on libuv's thread pool. */
export function compressBodyOffLoop(text: string | Uint8Array, encoding: ContentEncoding): Promise<Buffer> {
  const body = typeof text === 'string' ? utf8Bytes(text) : text;
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => (err === null ? resolve(out) : reject(err));
    const options = codingOptions(encoding, OFF_LOOP_CHUNK_BYTES);
    if (encoding === 'br') zlib.brotliCompress(body, options, done);
    else zlib.gzip(body, options, done);
  });
}

/**
 * STREAM_CHUNK_BYTES is a streamed compressor's output buffer. Each time the thread pool fills
 * one, the event loop takes it and hands the compressor its next turn; with the default 16 KiB
 * a 1 MiB piece of events took several such round trips. gzip of 48 MB of events in 1 MiB
 * pieces: 11-15 ms of the event loop's CPU with 16 KiB, 4.1 ms with 256 KiB (and wall time
 * 93-101 -> 86 ms); 1 MiB bought little more. The buffer is made at the stream's first push,
 * which only streams past the held start get.
 */
const STREAM_CHUNK_BYTES = 256 * 1024;

/**
 * StreamCompressor compresses one streamed response: each `push` compresses a batch and
 * flushes it (a sync flush, which keeps the dictionary), so what was pushed can be sent at once
 * and a streaming client decodes every event as soon as it arrives; `finish` ends the stream.
 * The work runs on libuv's thread pool, off the event loop. Calls must not overlap: the stream
 * chains them.
 */
export class StreamCompressor {
  private readonly z: zlib.Gzip | zlib.BrotliCompress;
  private readonly flushKind: number;
  private chunks: Buffer[] = [];
  private failure: Error | undefined;

  constructor(readonly encoding: ContentEncoding) {
    if (encoding === 'br') {
      this.z = zlib.createBrotliCompress({ chunkSize: STREAM_CHUNK_BYTES, params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } });
      this.flushKind = zlib.constants.BROTLI_OPERATION_FLUSH;
    } else {
      this.z = zlib.createGzip({ level: GZIP_LEVEL, chunkSize: STREAM_CHUNK_BYTES });
      this.flushKind = zlib.constants.Z_SYNC_FLUSH;
    }
    // Flowing mode: output is handed over as the compressor makes it, before a flush's callback.
    this.z.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.z.on('error', (err: Error) => (this.failure = err));
  }

  /** push compresses the chunks of text in order and resolves to every byte of them, flushed. */
  push(chunks: readonly (string | Uint8Array)[]): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      for (const text of chunks) this.z.write(typeof text === 'string' ? utf8Bytes(text) : text);
      this.z.flush(this.flushKind, () => (this.failure ? reject(this.failure) : resolve(this.take())));
    });
  }

  /** finish compresses the chunks of text in order as the last of the stream and resolves to the stream's remaining bytes. */
  finish(chunks: readonly (string | Uint8Array)[]): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.z.once('end', () => resolve(this.take()));
      this.z.once('error', reject);
      for (const text of chunks) this.z.write(typeof text === 'string' ? utf8Bytes(text) : text);
      this.z.end();
    });
  }

  /** close frees the compressor of a stream that ends without `finish` (the client left). */
  close(): void {
    this.z.destroy();
  }

  private take(): Buffer {
    const out = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [];
    return out;
  }
}
