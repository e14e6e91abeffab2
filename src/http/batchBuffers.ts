import { BufferPool } from './bufferPool.js';
import type { Chunk } from './sse.js';

/**
 * Batch buffers (FrameBytesBatcher) are reused rather than left to the collector (BufferPool):
 * an answer's events pass through one buffer after another. A buffer comes back through
 * releaseChunks once what it held is written.
 */

/** SPARE_BATCHES bounds the batch buffers kept for reuse (at 80 KiB each, 5 MiB). */
const SPARE_BATCHES = 64;
/** batches is made at the first batch, in the size its writer asks for (the writer knows what a batch holds). */
let batches: BufferPool | undefined;
/** releasedChunks are chunks already given back: a chunk counts once, however often it is released. */
const releasedChunks = new WeakSet<Uint8Array>();

/** batchBuffer is a buffer of `size` bytes for a batch: a spare one when there is one of that size. */
export function batchBuffer(size: number): Buffer {
  batches ??= new BufferPool(size, SPARE_BATCHES);
  return size === batches.size ? batches.take() : Buffer.allocUnsafeSlow(size);
}

/** spareBatch keeps a batch buffer that no chunk refers to for reuse, within SPARE_BATCHES; other buffers are left alone. */
export function spareBatch(buffer: Uint8Array): void {
  batches?.give(buffer);
}

/**
 * releaseChunks gives back the buffers of batches (FrameBytesBatcher.take) whose bytes have been
 * written: uWS has copied them (its write returns only after it has) or a compressor has
 * consumed them (its flush is done). Strings and buffers of other origin are left alone, and a
 * chunk released twice counts once. A chunk must not be read after it is released.
 */
export function releaseChunks(chunks: readonly Chunk[]): void {
  if (batches === undefined) return;
  for (const chunk of chunks) {
    if (typeof chunk === 'string' || releasedChunks.has(chunk) || !batches.madeHere(chunk)) continue;
    releasedChunks.add(chunk);
    batches.give(chunk);
  }
}
