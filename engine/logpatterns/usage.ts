/**
 * Least-frequently-used order over items whose use count only grows by one at a time, with
 * the least recently used first among equal counts. Every operation is O(1) (the classic
 * bucket-per-count layout): items of equal count sit in one doubly linked list, appended on
 * each use, so the head of the lowest count's list is the item to evict.
 *
 * The template miner uses it to pick which cluster to drop when it is full: a cluster seen
 * once, long ago, is the cheapest to lose; a frequent one is what the reader came for.
 */

/** UsageLinks are the fields an item carries to be kept in a UsageOrder. */
export interface UsageLinks {
  /** Times used; set to 1 by add and raised by touch. */
  count: number;
  prevUse: UsageLinks | undefined;
  nextUse: UsageLinks | undefined;
}

interface CountList {
  head: UsageLinks | undefined;
  tail: UsageLinks | undefined;
}

export class UsageOrder<T extends UsageLinks> {
  private readonly lists = new Map<number, CountList>();
  private least = 0;
  /** Set when the lowest-count list emptied by a removal and `least` must be found again. */
  private stale = false;

  /** add inserts a new item with a count of one. */
  add(item: T): void {
    item.count = 1;
    this.append(item);
    this.least = 1;
    this.stale = false;
  }

  /** touch records one more use of `item`, raising its count. */
  touch(item: T): void {
    const from = item.count;
    const emptied = this.unlink(item);
    if (emptied && from === this.least) this.least = from + 1;
    item.count = from + 1;
    this.append(item);
  }

  /** remove takes `item` out of the order. */
  remove(item: T): void {
    if (this.unlink(item) && item.count === this.least) this.stale = true;
  }

  /** leastUsed returns the item to evict first, or undefined when the order is empty. */
  leastUsed(): T | undefined {
    if (this.stale) this.findLeast();
    return this.lists.get(this.least)?.head as T | undefined;
  }

  private findLeast(): void {
    let least = Infinity;
    for (const count of this.lists.keys()) if (count < least) least = count;
    this.least = least === Infinity ? 0 : least;
    this.stale = false;
  }

  private append(item: UsageLinks): void {
    let list = this.lists.get(item.count);
    if (list === undefined) {
      list = { head: undefined, tail: undefined };
      this.lists.set(item.count, list);
    }
    item.prevUse = list.tail;
    item.nextUse = undefined;
    if (list.tail === undefined) list.head = item;
    else list.tail.nextUse = item;
    list.tail = item;
  }

  /** unlink removes `item` from its count's list and reports whether that list emptied. */
  private unlink(item: UsageLinks): boolean {
    const list = this.lists.get(item.count);
    if (list === undefined) return false;
    if (item.prevUse === undefined) list.head = item.nextUse;
    else item.prevUse.nextUse = item.nextUse;
    if (item.nextUse === undefined) list.tail = item.prevUse;
    else item.nextUse.prevUse = item.prevUse;
    item.prevUse = undefined;
    item.nextUse = undefined;
    if (list.head !== undefined) return false;
    this.lists.delete(item.count);
    return true;
  }
}
