/**
 * A remote write sender repeats every series' labels, byte for byte, in every request: the
 * same few hundred bytes per series every few seconds. Decoding them (UTF-8 checks, sorting,
 * validation against the org's limits, the series key) cost more than the samples they carry.
 * SeriesLabelCache remembers, per org, the wire bytes of a series' labels with what decoding
 * made of them, so a repeated series costs a hash and a byte comparison; the objects it hands
 * out are shared between requests and frozen.
 *
 * Entries are valid only for the limits they were checked against: a change of the org's
 * label limits empties the cache. It is bounded by entries, in two generations: lookups that
 * hit the older one move the entry into the newer, and when the newer one is full the older is
 * dropped, so series still being sent survive and the rest age out.
 */
import type { IngestLimits } from './types.js';

/** CachedSeriesLabels is what one series' label bytes decoded to. */
export interface CachedSeriesLabels {
  /** the wire bytes of the series' labels (a copy) */
  readonly bytes: Uint8Array;
  /** the validated labels, sorted, empty values dropped; frozen */
  readonly labels: Readonly<Record<string, string>>;
  /** the series key storage knows the series by (seriesKey of `labels`) */
  readonly key: string;
  /** the labels as sent, empty values included, for a series that sends more labels after them */
  readonly names: readonly string[];
  readonly values: readonly string[];
}

/** SERIES_LABEL_CACHE_ENTRIES bounds each generation; two are kept (about 600 bytes an entry). */
export const SERIES_LABEL_CACHE_ENTRIES = 32_768;

export class SeriesLabelCache {
  private current = new Map<number, CachedSeriesLabels>();
  private previous = new Map<number, CachedSeriesLabels>();
  private limitsStamp = '';

  constructor(private readonly maxEntries = SERIES_LABEL_CACHE_ENTRIES) {}

  /** size is the number of entries held, both generations. */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** useLimits empties the cache when the label limits differ from those its entries passed. */
  useLimits(limits: IngestLimits): void {
    const stamp = `${limits.maxLabelsPerSeries}/${limits.maxLabelNameLength}/${limits.maxLabelValueLength}`;
    if (stamp === this.limitsStamp) return;
    this.limitsStamp = stamp;
    this.current = new Map();
    this.previous = new Map();
  }

  /** lookup answers what the label bytes buf[start, end) decoded to before, if remembered. */
  lookup(buf: Uint8Array, start: number, end: number): CachedSeriesLabels | undefined {
    const hash = hashBytes(buf, start, end);
    let entry = this.current.get(hash);
    if (entry === undefined) {
      entry = this.previous.get(hash);
      if (entry === undefined || !sameBytes(entry.bytes, buf, start, end)) return undefined;
      this.previous.delete(hash);
      this.put(hash, entry);
      return entry;
    }
    return sameBytes(entry.bytes, buf, start, end) ? entry : undefined;
  }

  /**
   * remember keeps what the label bytes buf[start, end) decoded to and answers the entry; it
   * takes (and freezes) `labels`, `names` and `values`.
   */
  remember(
    buf: Uint8Array,
    start: number,
    end: number,
    labels: Record<string, string>,
    key: string,
    names: readonly string[],
    values: readonly string[],
  ): CachedSeriesLabels {
    const entry: CachedSeriesLabels = Object.freeze({
      bytes: buf.slice(start, end),
      labels: Object.freeze(labels),
      key,
      names: Object.freeze(names),
      values: Object.freeze(values),
    });
    this.put(hashBytes(buf, start, end), entry);
    return entry;
  }

  private put(hash: number, entry: CachedSeriesLabels): void {
    if (this.current.size >= this.maxEntries) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(hash, entry);
  }
}

/** hashBytes is 32-bit FNV-1a over buf[start, end). */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

function sameBytes(a: Uint8Array, buf: Uint8Array, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== buf[start + i]) return false;
  return true;
}
