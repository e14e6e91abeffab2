import path from 'node:path';
import { LogHead, DEFAULT_INDEXED_TAGS, type LogReader, type LogRecord, type LogTagSetReader } from './logHead.js';
import { MetricHead, type MetricAppend, type MetricQuerier, type SeriesLabelReader } from './metricHead.js';
import { Wal, type WalCorruption } from './wal.js';
import { decodeWalEntry, encodeWalEntry, type MetricMetadataRecord, type WalEntry } from './walCodec.js';

export interface StorageEvent {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export interface StorageOptions {
  dir: string;
  indexedTags?: readonly string[];
  walSegmentBytes?: number;
  onEvent?: (event: StorageEvent) => void;
}

/** OrgData is everything one org owns in memory; orgs never share any of it. */
class OrgData {
  readonly metrics = new MetricHead();
  readonly logs: LogHead;
  readonly metadata = new Map<string, MetricMetadataRecord>();

  constructor(indexedTags: ReadonlySet<string>) {
    this.logs = new LogHead(indexedTags);
  }

  apply(entry: WalEntry): void {
    if (entry.kind === 'logs') {
      this.logs.append(entry.records);
      return;
    }
    for (const s of entry.series) this.metrics.append(s);
    for (const m of entry.metadata) this.metadata.set(m.name, m);
  }
}

/**
 * Storage is the write and read path of the embedded back end. A write is encoded, appended
 * to the WAL and synced before it is acknowledged, and only then applied to the org's head,
 * so what a client was told is stored survives a crash, and what a query sees was durable.
 * Callers validate a whole request before calling append, so a bad request stores nothing.
 */
export class Storage {
  private readonly orgs = new Map<string, OrgData>();
  private readonly indexedTags: ReadonlySet<string>;

  private constructor(
    private readonly wal: Wal,
    options: StorageOptions,
  ) {
    this.indexedTags = new Set(options.indexedTags ?? DEFAULT_INDEXED_TAGS);
  }

  static async open(options: StorageOptions): Promise<Storage> {
    const emit = options.onEvent ?? (() => {});
    const { wal, records } = await Wal.open({
      dir: path.join(options.dir, 'wal'),
      segmentBytes: options.walSegmentBytes,
      onCorruption: (c: WalCorruption) =>
        emit({ level: 'error', message: 'write-ahead log damaged; intact records kept, the rest dropped', fields: { ...c } }),
    });
    const storage = new Storage(wal, options);
    let replayed = 0;
    for (const payload of records) {
      try {
        const entry = decodeWalEntry(payload);
        storage.org(entry.org).apply(entry);
        replayed++;
      } catch (err) {
        emit({ level: 'error', message: 'skipping undecodable WAL record', fields: { error: String(err) } });
      }
    }
    if (replayed > 0) emit({ level: 'info', message: 'replayed write-ahead log', fields: { records: replayed } });
    return storage;
  }

  private org(id: string): OrgData {
    let data = this.orgs.get(id);
    if (!data) this.orgs.set(id, (data = new OrgData(this.indexedTags)));
    return data;
  }

  async appendLogs(org: string, records: LogRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.write({ kind: 'logs', org, records });
  }

  async appendMetrics(org: string, series: MetricAppend[], metadata: MetricMetadataRecord[] = []): Promise<void> {
    if (series.length === 0 && metadata.length === 0) return;
    await this.write({ kind: 'metrics', org, series, metadata });
  }

  private async write(entry: WalEntry): Promise<void> {
    await this.wal.append(encodeWalEntry(entry));
    this.org(entry.org).apply(entry);
  }

  metrics(org: string): MetricQuerier {
    return this.org(org).metrics;
  }

  logs(org: string): LogReader {
    return this.org(org).logs;
  }

  /** metricLabelSets is the org's series listing without samples, for label and series browsers. */
  metricLabelSets(org: string): SeriesLabelReader {
    return this.org(org).metrics;
  }

  /** logTagSets is the org's log tag-set listing without messages, for label and series browsers. */
  logTagSets(org: string): LogTagSetReader {
    return this.org(org).logs;
  }

  metricMetadata(org: string): ReadonlyMap<string, MetricMetadataRecord> {
    return this.org(org).metadata;
  }

  async close(): Promise<void> {
    await this.wal.close();
  }
}
