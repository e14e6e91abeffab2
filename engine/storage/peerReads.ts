import { Catalog, emptyCatalog, type Signal } from './catalog.js';
import type { CatalogStore } from './catalogStore.js';
import { selectorsKey } from './headFilter.js';
import type { LabelMatcher } from './matchers.js';
import { OrgLogView, OrgMetricView, type OrgSources, type ReadScope, type ViewRefresh } from './orgViews.js';
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

/** MAX_KEPT_FETCHES bounds the peer fetches remembered for reuse by later views. */
const MAX_KEPT_FETCHES = 64;

/**
 * Coverage is what a fetch holds: the series of some selectors (by a key of their matchers) or
 * all of them, over a span of milliseconds (inclusive; infinite ends for the whole heads).
 */
interface Coverage {
  selectors: 'all' | ReadonlyMap<string, readonly LabelMatcher[]>;
  minMs: number;
  maxMs: number;
}

const EVERYTHING: Coverage = { selectors: 'all', minMs: -Infinity, maxMs: Infinity };

/** coverageOf is what reading `scopes` needs; none at all (nothing to read) is taken as everything, to be safe. */
function coverageOf(scopes: readonly ReadScope[]): Coverage {
  if (scopes.length === 0) return EVERYTHING;
  const selectors = new Map<string, readonly LabelMatcher[]>();
  let minMs = Infinity;
  let maxMs = -Infinity;
  for (const s of scopes) {
    selectors.set(JSON.stringify(s.matchers.map((m) => [m.name, m.type, m.value])), s.matchers);
    minMs = Math.min(minMs, s.minMs);
    maxMs = Math.max(maxMs, s.maxMs);
  }
  return { selectors, minMs, maxMs };
}

function covers(have: Coverage, wanted: Coverage): boolean {
  if (have.minMs > wanted.minMs || have.maxMs < wanted.maxMs) return false;
  if (have.selectors === 'all') return true;
  if (wanted.selectors === 'all') return false;
  for (const key of wanted.selectors.keys()) if (!have.selectors.has(key)) return false;
  return true;
}

function unite(a: Coverage, b: Coverage): Coverage {
  const selectors = a.selectors === 'all' || b.selectors === 'all' ? 'all' : new Map([...a.selectors, ...b.selectors]);
  return { selectors, minMs: Math.min(a.minMs, b.minMs), maxMs: Math.max(a.maxMs, b.maxMs) };
}

function isEverything(c: Coverage): boolean {
  return c.selectors === 'all' && c.minMs === -Infinity && c.maxMs === Infinity;
}

/** Fetching is a view's peer fetch: what it covers and the answer on its way. */
interface Fetching {
  covers: Coverage;
  heads: Promise<PeerRead>;
}

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
   * changed, then fetch the heads (only the series or streams `coverage` selects, over its time
   * range).
   * A holder that cut segments after the catalog was read tells so (its segmentsBefore is
   * above the catalog's next id), and the catalog is read again, so no cut is missed: segments
   * cut after the heads were read are left out by seq instead (see sources). One fetch serves
   * every view made before it started that asks for the same selectors and range. Only a whole
   * fetch (every series, all time) serves listings, which read without preparing.
   */
  private refreshPeers(org: string, signal: Signal, viewNumber: number, coverage: Coverage): Promise<PeerRead> {
    const whole = `${signal}\u0000${org}`;
    const everything = isEverything(coverage);
    const selectors = coverage.selectors === 'all' ? undefined : [...coverage.selectors.values()];
    const range = Number.isFinite(coverage.minMs) || Number.isFinite(coverage.maxMs) ? { minMs: coverage.minMs, maxMs: coverage.maxMs } : undefined;
    const key = everything ? whole : `${whole}\u0000${selectors === undefined ? '*' : selectorsKey(selectors)}\u0000${coverage.minMs}\u0000${coverage.maxMs}`;
    const running = this.peerFetches.get(key);
    if (running !== undefined && running.after >= viewNumber) return running.heads;
    const heads = (async (): Promise<PeerRead> => {
      await this.reloadCatalog();
      const answer = this.peers ? await this.peers.fetch(org, signal, selectors, range) : NO_PEERS;
      // A reload already under way may have read the catalog before the holder's cut: then read it once more.
      for (let i = 0; i < RELOADS_PER_FETCH && catalogBehind(this.current.state, answer.bounds); i++) {
        await this.reloadCatalog();
      }
      const read = { answer, catalog: this.current };
      if (everything) this.latestPeers.set(whole, read);
      return read;
    })();
    const entry = { after: this.viewCount, heads };
    this.peerFetches.set(key, entry);
    // Narrow fetches differ per query: only the last of each is kept, up to a bound.
    if (this.peerFetches.size > MAX_KEPT_FETCHES) this.peerFetches.delete(this.peerFetches.keys().next().value!);
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

  /**
   * view wires a view: its sources come from its own peer fetch once prepared. A view fetches
   * for the selectors and time range of its first prepare and again only when a later prepare
   * reads a selector or a time that fetch did not cover (then for both), so a query whose
   * slices all read the same selectors fetches once, if its first prepare names the range of
   * the whole query (the plans pass it as the scope of every slice's prepare).
   */
  private view<V>(org: string, signal: Signal, make: (sources: () => PeerRead | undefined, refresh: ViewRefresh) => V): V {
    const viewNumber = ++this.viewCount;
    let fetched: PeerRead | undefined;
    let fetching: Fetching | undefined;
    const fetchFor = (wanted: Coverage): Fetching => {
      const covering = fetching === undefined ? wanted : unite(fetching.covers, wanted);
      return { covers: covering, heads: this.refreshPeers(org, signal, viewNumber, covering) };
    };
    return make(
      () => fetched,
      async (scopes) => {
        const wanted = coverageOf(scopes);
        let current = fetching !== undefined && covers(fetching.covers, wanted) ? fetching : (fetching = fetchFor(wanted));
        fetched = await current.heads;
        // A prepare running alongside may have started a wider fetch meanwhile: read the newest.
        while (fetching !== undefined && fetching !== current) {
          current = fetching;
          fetched = await current.heads;
        }
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
   * synchronously without a prepare step, and then see the catalog and heads fetched here. It
   * answers the holders (or partitions) of either signal that could not be read, as a view's
   * `unavailableHeads` does for a query, so a listing missing recent data can say so.
   */
  async refreshListings(org: string): Promise<string[]> {
    const viewNumber = ++this.viewCount;
    const reads = await Promise.all((['metrics', 'logs'] as const).map((signal) => this.refreshPeers(org, signal, viewNumber, EVERYTHING)));
    return [...new Set(reads.flatMap((r) => r.answer.unavailable))];
  }

  /** metricMetadata is what the catalog recorded at the last cut and what the heads' holders said since. */
  metricMetadata(org: string): ReadonlyMap<string, MetricMetadataRecord> {
    const merged = new Map<string, MetricMetadataRecord>();
    for (const m of this.current.state.metricMetadata[org] ?? []) merged.set(m.name, m);
    for (const m of this.latestPeers.get(`metrics\u0000${org}`)?.answer.metadata ?? []) merged.set(m.name, m);
    return merged;
  }
}
