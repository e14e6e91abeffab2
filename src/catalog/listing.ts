import type { Labels } from '../../engine/index.js';

/**
 * Listing is the response body of every helper endpoint: the items, sorted, at most `limit`
 * of them, and whether more existed. Scans stop as soon as `limit + 1` distinct items are
 * known, which is enough to answer `truncated` without looking further.
 */
export interface Listing<T> {
  data: T[];
  truncated: boolean;
}

/**
 * DistinctStrings collects distinct strings up to one more than the limit. `add` reports
 * whether the caller should keep scanning, so it can be returned straight from a visitor.
 */
export class DistinctStrings {
  private readonly items = new Set<string>();

  constructor(private readonly limit: number) {}

  /** add records `value` and returns false once the listing is known to be truncated. */
  add(value: string): boolean {
    this.items.add(value);
    return this.items.size <= this.limit;
  }

  /**
   * listing sorts what was seen and keeps `limit` items. When truncated they are the first in
   * sort order among those seen, not necessarily among all that exist.
   */
  listing(): Listing<string> {
    const sorted = [...this.items].sort();
    return { data: sorted.slice(0, this.limit), truncated: sorted.length > this.limit };
  }
}

/**
 * DistinctLabelSets collects label sets the storage already deduplicated, up to one more than
 * the limit, and lists them in the order of their canonical text.
 */
export class DistinctLabelSets {
  private readonly items: Labels[] = [];

  constructor(private readonly limit: number) {}

  /** add records one label set and returns false once the listing is known to be truncated. */
  add(labels: Labels): boolean {
    this.items.push(labels);
    return this.items.length <= this.limit;
  }

  listing(): Listing<Labels> {
    // Label sets arrive with sorted keys, so their JSON text is a canonical sort key.
    const keyed = this.items.map((labels) => ({ labels, key: JSON.stringify(labels) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { data: keyed.slice(0, this.limit).map((k) => k.labels), truncated: keyed.length > this.limit };
  }
}

/** msToNs converts a window bound to the nanosecond timestamps logs are stored with. */
export function msToNs(ms: number): bigint {
  return BigInt(Math.floor(ms)) * 1_000_000n;
}
