import type { Listing } from './listing.js';

/** MetricMetadata is one entry of the metadata listing; what ingestion kept about a metric family. */
export interface MetricMetadata {
  metric: string;
  type: string;
  unit: string;
  help: string;
}

/** StoredMetadata is the part of a stored metadata record the listing reads. */
interface StoredMetadata {
  type: string;
  unit: string;
  help: string;
}

/**
 * FAMILY_SUFFIXES are the suffixes Prometheus and OpenMetrics add to a family's name to name
 * its series (`x_bucket`, `x_sum`, `x_count` of histogram `x`; `x_total` of an OpenMetrics
 * counter `x`), so a series finds its family's metadata.
 */
const FAMILY_SUFFIXES = ['_bucket', '_count', '_sum', '_total', '_created', '_gcount', '_gsum', '_info'] as const;

/**
 * MetadataCollector turns the metric names of the series in a window into metadata entries,
 * one per family: a series name resolves to itself when metadata exists under it, else to
 * its name without a family suffix when that has metadata, else to itself with type
 * `unknown`. Each distinct name is resolved once.
 */
export class MetadataCollector {
  private readonly resolved = new Set<string>();
  private readonly entries = new Map<string, MetricMetadata>();

  constructor(
    private readonly stored: ReadonlyMap<string, StoredMetadata>,
    private readonly limit: number,
    /** only keeps the entry of this family (or of the family this series name belongs to) when set. */
    private readonly only: string | undefined,
  ) {}

  /** add takes one series' metric name and returns false once the listing is known to be truncated. */
  add(seriesName: string): boolean {
    if (this.resolved.has(seriesName)) return true;
    this.resolved.add(seriesName);
    const entry = this.resolve(seriesName);
    if (this.only !== undefined && entry.metric !== this.only && seriesName !== this.only) return true;
    if (!this.entries.has(entry.metric)) this.entries.set(entry.metric, entry);
    return this.entries.size <= this.limit;
  }

  private resolve(name: string): MetricMetadata {
    const exact = this.stored.get(name);
    if (exact) return { metric: name, type: exact.type, unit: exact.unit, help: exact.help };
    for (const suffix of FAMILY_SUFFIXES) {
      if (!name.endsWith(suffix)) continue;
      const family = name.slice(0, -suffix.length);
      const found = this.stored.get(family);
      if (found) return { metric: family, type: found.type, unit: found.unit, help: found.help };
    }
    return { metric: name, type: 'unknown', unit: '', help: '' };
  }

  listing(): Listing<MetricMetadata> {
    const sorted = [...this.entries.values()].sort((a, b) => (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0));
    return { data: sorted.slice(0, this.limit), truncated: sorted.length > this.limit };
  }
}
