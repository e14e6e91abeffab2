/**
 * ByteLru keeps values up to a total byte size, evicting the least recently used first. A
 * value bigger than the whole budget is still kept until the next insertion, so the caller
 * that just loaded it can use it.
 */
export class ByteLru<K, V extends { readonly byteSize: number }> {
  private readonly entries = new Map<K, V>();
  private bytes = 0;

  /** onEvict hears of each entry dropped to make room (not of explicit deletes), to free what it holds outside memory. */
  constructor(
    private readonly maxBytes: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  get totalBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-inserting moves the entry to the young end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += value.byteSize;
    for (const [k, old] of this.entries) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.entries.delete(k);
      this.bytes -= old.byteSize;
      this.onEvict?.(k, old);
    }
  }

  delete(key: K): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= value.byteSize;
  }
}
