import type { Chunk } from './sse.js';

/**
 * Batch buffers (FrameBytesBatcher) are reused rather than left to the collector. An answer's
 * events pass through one buffer after another (a 10,000-series hour as default events is 486 MB
 * of them), and memory outside the heap is freed only by a collection of the heap: with little
 * else allocated there (series read in place), it piled up until V8 ran full collections for
 * "external memory pressure", which cost more than the allocations had. A buffer comes back
 * through releaseChunks once what it held is written.
 */

/** SPARE_BYTES bounds the batch buffers kept for reuse (64 of an uncompressed stream's 80 KiB). */
const SPARE_BYTES = 5 * 1024 * 1024;
/** spareBatches keeps spare buffers by size: streams that compress make bigger batches than those that do not. */
const spareBatches = new Map<number, Buffer[]>();
let spareBytes = 0;
/** batchBuffers maps the memory of each batch buffer made here to the buffer, so a written chunk (a view of it) can be given back. */
const batchBuffers = new WeakMap<ArrayBufferLike, Buffer>();
/** releasedChunks are chunks already given back: a chunk counts once, however often it is released. */
const releasedChunks = new WeakSet<Uint8Array>();

/** batchBuffer is a buffer of `size` bytes for a batch: a spare one when there is one of that size. */
export function batchBuffer(size: number): Buffer {
  const spare = spareBatches.get(size)?.pop();
  if (spare !== undefined) {
    spareBytes -= size;
    return spare;
  }
  const fresh = Buffer.allocUnsafeSlow(size);
  batchBuffers.set(fresh.buffer, fresh);
  return fresh;
}

/** spareBatch keeps a batch buffer that no chunk refers to for reuse, within SPARE_BYTES; other buffers are left alone. */
export function spareBatch(buffer: Uint8Array): void {
  const whole = batchBuffers.get(buffer.buffer);
  if (whole === undefined || spareBytes + whole.length > SPARE_BYTES) return;
  let spares = spareBatches.get(whole.length);
  if (spares === undefined) spareBatches.set(whole.length, (spares = []));
  spares.push(whole);
  spareBytes += whole.length;
}

/**
 * releaseChunks gives back the buffers of batches (FrameBytesBatcher.take) whose bytes have been
 * written: uWS has copied them (its write returns only after it has) or a compressor has
 * consumed them (its flush is done). Strings and buffers of other origin are left alone, and a
 * chunk released twice counts once. A chunk must not be read after it is released.
 */
export function releaseChunks(chunks: readonly Chunk[]): void {
  for (const chunk of chunks) {
    if (typeof chunk === 'string' || releasedChunks.has(chunk) || !batchBuffers.has(chunk.buffer)) continue;
    releasedChunks.add(chunk);
    spareBatch(chunk);
  }
}
