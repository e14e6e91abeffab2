import type { CatalogState } from './catalog.js';
import { LogHead } from './logHead.js';
import { MetricHead } from './metricHead.js';
import type { MetricMetadataRecord, WalEntry } from './walCodec.js';

/** HeadEntry is a record the heads take: log lines or metric series (exemplars go to the exemplar store). */
export type HeadEntry = Exclude<WalEntry, { kind: 'exemplars' }>;

/** HeadGeneration is one set of heads of an org: the one taking writes, or one frozen by a cut. */
export class HeadGeneration {
  readonly metrics = new MetricHead();
  readonly logs: LogHead;

  constructor(indexedTags: ReadonlySet<string>) {
    this.logs = new LogHead(indexedTags);
  }

  get hasData(): boolean {
    return this.metrics.sampleCount > 0 || this.logs.rowCount > 0;
  }
}

/**
 * OrgData is everything one org owns in memory; orgs never share any of it. Writes go to the
 * active generation; frozen generations are being written to segments and stay readable until
 * those segments are registered.
 */
export class OrgData {
  active: HeadGeneration;
  frozen: HeadGeneration[] = [];
  readonly metadata = new Map<string, MetricMetadataRecord>();

  constructor(private readonly indexedTags: ReadonlySet<string>) {
    this.active = new HeadGeneration(indexedTags);
  }

  apply(entry: HeadEntry): void {
    if (entry.kind === 'logs') {
      this.active.logs.append(entry.records);
      return;
    }
    for (const s of entry.series) this.active.metrics.append(s);
    for (const m of entry.metadata) this.metadata.set(m.name, m);
  }

  /** freeze moves the active generation to the frozen list (if it holds data) and starts a fresh one. */
  freeze(): void {
    if (!this.active.hasData) return;
    this.frozen.push(this.active);
    this.active = new HeadGeneration(this.indexedTags);
  }

  /** drop forgets every generation (the data is read again from elsewhere). */
  drop(): void {
    this.active = new HeadGeneration(this.indexedTags);
    this.frozen = [];
  }

  /** generations lists the frozen generations, then the active one: oldest data first. */
  get generations(): HeadGeneration[] {
    return [...this.frozen, this.active];
  }
}

/**
 * estimateBytes approximates what a WAL entry adds to the heads, in the units of the heads'
 * own estimates; whether a series is new is not known here, so each series entry counts a
 * small overhead. Kept as a running total so the size check costs nothing per write.
 */
function estimateBytes(entry: HeadEntry): number {
  if (entry.kind === 'logs') {
    let n = 0;
    for (const r of entry.records) n += r.message.length + 48;
    return n;
  }
  let n = 0;
  for (const s of entry.series) {
    n += s.timestampsMs.length * 16 + 64;
    if (s.histograms !== undefined) for (const h of s.histograms) if (h !== undefined) n += 96 + 12 * (h.posIndex.length + h.negIndex.length);
  }
  return n;
}

/** HeadTotals sums the heads' memory for StorageStats. */
export interface HeadTotals {
  headBytes: number;
  logSnapshotBytes: number;
  logChunksPacked: number;
  metricSnapshotBytes: number;
  metricChunksPacked: number;
}

/**
 * OrgHeads is the in-memory part of a storage that holds heads: every org's generations, and
 * the running size and age of the active heads that decide when to cut. It knows nothing of
 * where records come from (WAL, write log) or where cuts go.
 */
export class OrgHeads {
  private readonly orgs = new Map<string, OrgData>();
  /** activeBytes estimates the active heads' size across orgs, for the size trigger. */
  activeBytes = 0;
  /** activeSinceMs is when the oldest data of the active heads arrived, for the age trigger. */
  activeSinceMs: number | undefined;

  constructor(
    private readonly indexedTags: ReadonlySet<string>,
    private readonly now: () => number,
  ) {}

  /** org is the org's data, made empty on first use. */
  org(id: string): OrgData {
    let data = this.orgs.get(id);
    if (!data) this.orgs.set(id, (data = new OrgData(this.indexedTags)));
    return data;
  }

  /** get is the org's data if it has any, without making it. */
  get(id: string): OrgData | undefined {
    return this.orgs.get(id);
  }

  entries(): Iterable<[string, OrgData]> {
    return this.orgs.entries();
  }

  /** apply puts one decoded record into its org's active heads. */
  apply(entry: HeadEntry): void {
    this.org(entry.org).apply(entry);
    this.activeBytes += estimateBytes(entry);
    this.activeSinceMs ??= this.now();
  }

  /** loadMetadata seeds each org's metric metadata with what the catalog recorded at the last cut. */
  loadMetadata(state: CatalogState): void {
    for (const [org, records] of Object.entries(state.metricMetadata)) {
      const data = this.org(org);
      for (const m of records) data.metadata.set(m.name, m);
    }
  }

  /** freezeAll freezes every org's active heads (see OrgData.freeze) and restarts the size and age count. */
  freezeAll(): void {
    for (const data of this.orgs.values()) data.freeze();
    this.resetActive();
  }

  /** dropAll forgets every org's heads; metadata is kept. */
  dropAll(): void {
    for (const data of this.orgs.values()) data.drop();
    this.resetActive();
  }

  private resetActive(): void {
    this.activeBytes = 0;
    this.activeSinceMs = undefined;
  }

  /** hasData tells whether any head holds data, active or frozen. */
  get hasData(): boolean {
    for (const o of this.orgs.values()) if (o.active.hasData || o.frozen.length > 0) return true;
    return false;
  }

  /** hasFrozen tells whether a failed cut left frozen heads behind. */
  get hasFrozen(): boolean {
    for (const o of this.orgs.values()) if (o.frozen.length > 0) return true;
    return false;
  }

  /** generationCount counts every org's generations, active ones included (a bound on the segments a cut writes, per signal). */
  get generationCount(): number {
    let n = 0;
    for (const o of this.orgs.values()) n += o.frozen.length + 1;
    return n;
  }

  /** metadataSnapshot is every org's metric metadata, as a cut records it in the catalog. */
  metadataSnapshot(): Record<string, MetricMetadataRecord[]> {
    const out: Record<string, MetricMetadataRecord[]> = {};
    for (const [org, data] of this.orgs) if (data.metadata.size > 0) out[org] = [...data.metadata.values()];
    return out;
  }

  totals(): HeadTotals {
    const t: HeadTotals = { headBytes: 0, logSnapshotBytes: 0, logChunksPacked: 0, metricSnapshotBytes: 0, metricChunksPacked: 0 };
    for (const o of this.orgs.values()) {
      for (const g of o.generations) {
        t.headBytes += g.metrics.estimatedBytes + g.logs.estimatedBytes;
        t.logSnapshotBytes += g.logs.snapshotStats.packedBytes;
        t.logChunksPacked += g.logs.snapshotStats.chunksPacked;
        t.metricSnapshotBytes += g.metrics.snapshotStats.packedBytes;
        t.metricChunksPacked += g.metrics.snapshotStats.chunksPacked;
      }
    }
    return t;
  }
}
