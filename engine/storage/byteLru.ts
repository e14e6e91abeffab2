/**
 * ByteLru keeps values up to a total byte size, evicting the least recently used first. A
 * value bigger than the whole budget is still kept until the next insertion, so the caller
 * that just loaded it can use it.
 *
 * A value may grow while cached (a segment reader decodes series as queries touch them), so
 * sizes are re-read rather than trusted from insertion: the entry being read on every get,
 * and all entries on every insertion. Growth is therefore counted at the next access, and the
 * budget holds from then on.
 */
export class ByteLru<K, V extends { readonly byteSize: number }> {
  private readonly entries = new Map<K, { value: V; size: number }>();
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
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Re-inserting moves the entry to the young end of the Map's order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.resize(entry)) this.evict(key);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = value.byteSize;
    this.entries.set(key, { value, size });
    this.bytes += size;
    for (const entry of this.entries.values()) this.resize(entry);
    this.evict(key);
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
  }

  /** resize re-reads an entry's size and says whether it grew. */
  private resize(entry: { value: V; size: number }): boolean {
    const now = entry.value.byteSize;
    if (now === entry.size) return false;
    this.bytes += now - entry.size;
    const grew = now > entry.size;
    entry.size = now;
    return grew;
  }

  /** evict drops the oldest entries until the budget holds, never `keep`. */
  private evict(keep: K): void {
    for (const [k, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      if (k === keep) continue;
      this.entries.delete(k);
      this.bytes -= entry.size;
      this.onEvict?.(k, entry.value);
    }
  }
}
