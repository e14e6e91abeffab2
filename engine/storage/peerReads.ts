import { Catalog, emptyCatalog, type Signal } from './catalog.js';
import type { CatalogStore } from './catalogStore.js';
import { OrgLogView, OrgMetricView, type OrgSources } from './orgViews.js';
import { catalogBehind, cutAfterHeads, type PeerHeadSource, type PeerHeads } from './peerHeads.js';
import type { SegmentReaders } from './segmentReaders.js';
import type { MetricMetadataRecord } from './walCodec.js';

/**
 * PeerRead is what a query process reads an org from: the holders' answer and the catalog it
 * was checked against. A view keeps the pair for its whole life, so a catalog reloaded by a
 * later query (which may hold segments merged from data these heads also hold) never mixes in.
 */
interface PeerRead {
  answer: PeerHeads;
  catalog: Catalog;
}

/** RELOADS_PER_FETCH bounds the catalog reloads one fetch may need to see the cuts its holders report. */
const RELOADS_PER_FETCH = 3;

/** NO_PEERS is the answer of a read-only storage that has no peers to ask: segments only, nothing missing. */
const NO_PEERS: PeerHeads = { metrics: [], logs: [], bounds: [], unavailable: [], metadata: [] };

/**
 * PeerReads is the read path of a query process in a scaled-out installation: it holds no
 * heads and writes nothing. Before a query reads an org it reloads the catalog (when the store
 * says it changed) and fetches the un-cut data from the processes that hold it (`peers`),
 * and its views merge the two so that data moving from a holder's heads into a segment is
 * read exactly once.
 */
export class PeerReads {
  private current: Catalog;
  /** catalogVersion is the catalog store's version of the state loaded last. */
  private catalogVersion: string | undefined;
  private catalogReload: Promise<void> | undefined;
  /** viewCount numbers the views made, so a view reuses only a peer fetch started after it was made. */
  private viewCount = 0;
  /** peerFetches are the peer fetches under way or done last, per signal and org, with the view count when each started. */
  private readonly peerFetches = new Map<string, { after: number; heads: Promise<PeerRead> }>();
  /** latestPeers is the newest answer per signal and org, for reads that do not prepare (listings). */
  private readonly latestPeers = new Map<string, PeerRead>();

  private constructor(
    private readonly catalogStore: CatalogStore,
    private readonly peers: PeerHeadSource | undefined,
    private readonly readers: SegmentReaders,
    catalog: Catalog,
    version: string | undefined,
  ) {
    this.current = catalog;
    this.catalogVersion = version;
  }

  /**
   * open reads the catalog as stored (empty if none yet): no WAL, no reconciliation (the files
   * belong to the processes that write them), no timers.
   */
  static async open(catalogStore: CatalogStore, peers: PeerHeadSource | undefined, readers: SegmentReaders): Promise<PeerReads> {
    const version = await catalogStore.version?.();
    const state = (await catalogStore.load()) ?? emptyCatalog();
    return new PeerReads(catalogStore, peers, readers, new Catalog(state), version);
  }

  /** catalog is the catalog as loaded last. */
  get catalog(): Catalog {
    return this.current;
  }

  /**
   * reloadCatalog loads the catalog again when its store says it changed (or cannot say), one
   * load at a time. The version is read before the state, so a save in between is seen by
   * the next call.
   */
  private reloadCatalog(): Promise<void> {
    return (this.catalogReload ??= (async () => {
      try {
        const version = await this.catalogStore.version?.();
        if (version !== undefined && version === this.catalogVersion) return;
        const state = (await this.catalogStore.load()) ?? emptyCatalog();
        this.current = new Catalog(state);
        this.catalogVersion = version;
      } finally {
        this.catalogReload = undefined;
      }
    })());
  }

  /**
   * refreshPeers is what a query does before it reads an org: reload the catalog if it
   * changed, then fetch the heads. A holder that cut segments after the catalog was read tells
   * so (its segmentsBefore is above the catalog's next id), and the catalog is read again, so
   * no cut is missed: segments cut after the heads were read are left out by seq instead (see
   * sources). One fetch serves every view made before it started.
   */
  private refreshPeers(org: string, signal: Signal, viewNumber: number): Promise<PeerRead> {
    const key = `${signal}\u0000${org}`;
    const running = this.peerFetches.get(key);
    if (running !== undefined && running.after >= viewNumber) return running.heads;
    const heads = (async (): Promise<PeerRead> => {
      await this.reloadCatalog();
      const answer = this.peers ? await this.peers.fetch(org, signal) : NO_PEERS;
      // A reload already under way may have read the catalog before the holder's cut: then read it once more.
      for (let i = 0; i < RELOADS_PER_FETCH && catalogBehind(this.current.state, answer.bounds); i++) {
        await this.reloadCatalog();
      }
      const read = { answer, catalog: this.current };
      this.latestPeers.set(key, read);
      return read;
    })();
    const entry = { after: this.viewCount, heads };
    this.peerFetches.set(key, entry);
    heads.catch(() => {
      if (this.peerFetches.get(key) === entry) this.peerFetches.delete(key);
    });
    return heads;
  }

  /**
   * sources is an org's data: the segments of the catalog a view pinned with its heads (else
   * the newest read, for listings), less those cut after the heads were read (their data is in
   * those heads), and the heads.
   */
  private sources<H>(org: string, signal: Signal, pinned: PeerRead | undefined, heads: (p: PeerHeads) => H[]): OrgSources<H> {
    const read = pinned ?? this.latestPeers.get(`${signal}\u0000${org}`);
    const bounds = read?.answer.bounds ?? [];
    const all = (read?.catalog ?? this.current).segments(org, signal);
    return { segments: bounds.length === 0 ? all : all.filter((e) => !cutAfterHeads(e.meta, bounds)), heads: read ? heads(read.answer) : [] };
  }

  /** view wires a view: sources from its own peer fetch once prepared, refreshed once per view. */
  private view<V>(org: string, signal: Signal, make: (sources: () => PeerRead | undefined, refresh: () => Promise<readonly string[]>) => V): V {
    const viewNumber = ++this.viewCount;
    let fetched: PeerRead | undefined;
    let fetching: Promise<PeerRead> | undefined;
    return make(
      () => fetched,
      async () => {
        fetched = await (fetching ??= this.refreshPeers(org, signal, viewNumber));
        return fetched.answer.unavailable;
      },
    );
  }

  metrics(org: string): OrgMetricView {
    return this.view(org, 'metrics', (peers, refresh) => new OrgMetricView(() => this.sources(org, 'metrics', peers(), (p) => p.metrics), this.readers, undefined, refresh));
  }

  logs(org: string): OrgLogView {
    return this.view(org, 'logs', (peers, refresh) => new OrgLogView(() => this.sources(org, 'logs', peers(), (p) => p.logs), this.readers, undefined, refresh));
  }

  /**
   * refreshListings brings listings (labels, series, metadata) up to date: they read
   * synchronously without a prepare step, and then see the catalog and heads fetched here.
   */
  async refreshListings(org: string): Promise<void> {
    const viewNumber = ++this.viewCount;
    await Promise.all((['metrics', 'logs'] as const).map((signal) => this.refreshPeers(org, signal, viewNumber)));
  }

  /** metricMetadata is what the catalog recorded at the last cut and what the heads' holders said since. */
  metricMetadata(org: string): ReadonlyMap<string, MetricMetadataRecord> {
    const merged = new Map<string, MetricMetadataRecord>();
    for (const m of this.current.state.metricMetadata[org] ?? []) merged.set(m.name, m);
    for (const m of this.latestPeers.get(`metrics\u0000${org}`)?.answer.metadata ?? []) merged.set(m.name, m);
    return merged;
  }
}
