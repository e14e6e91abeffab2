/**
 * BufferPool keeps buffers of one size for reuse rather than leaving them to the collector.
 * Memory outside the heap is freed only by a collection of the heap, and V8 starts a full one
 * when such memory grows by some tens of megabytes since the last: an answer that passes through
 * buffer after buffer (a 10,000-series hour as default events is 486 MB of them) with little
 * else allocated made those collections cost more than the allocations had.
 */
export class BufferPool {
  private readonly spares: Buffer[] = [];
  /** made maps the memory of each buffer made here to the buffer, so a view of it can be given back. */
  private readonly made = new WeakMap<ArrayBufferLike, Buffer>();

  /** size is every buffer's; at most `maxSpares` are kept. */
  constructor(
    readonly size: number,
    private readonly maxSpares: number,
  ) {}

  /** take is a spare buffer, or a new one. */
  take(): Buffer {
    const spare = this.spares.pop();
    if (spare !== undefined) return spare;
    const fresh = Buffer.allocUnsafeSlow(this.size);
    this.made.set(fresh.buffer, fresh);
    return fresh;
  }

  /** madeHere tells whether `view` is of a buffer of this pool. */
  madeHere(view: Uint8Array): boolean {
    return this.made.has(view.buffer);
  }

  /**
   * give keeps the buffer `view` is of for reuse, within the bound; other buffers are left
   * alone. Nothing may read or write the buffer afterwards, and it must be given once.
   */
  give(view: Uint8Array): void {
    const whole = this.made.get(view.buffer);
    if (whole !== undefined && this.spares.length < this.maxSpares) this.spares.push(whole);
  }
}
