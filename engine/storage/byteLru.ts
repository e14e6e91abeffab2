/**
 * ByteLru keeps values up to a total byte size, evicting the least recently used first. A
 * value bigger than the whole budget is still kept until the next insertion, so the caller
 * that just loaded it can use it.
 */
export class ByteLru<K, V extends { readonly byteSize: number }> {
  private readonly entries = new Map<K, V>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

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
    }
  }

  delete(key: K): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= value.byteSize;
  }
}
