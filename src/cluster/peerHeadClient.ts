import type { Signal } from '../../engine/storage/catalog.js';
import { selectorsKey } from '../../engine/storage/headFilter.js';
import { decodeHeadExport, type HeadExport, type KnownChunks } from '../../engine/storage/headWire.js';
import type { SharedLogChunk } from '../../engine/storage/logChunk.js';
import type { LabelMatcher } from '../../engine/storage/matchers.js';
import type { SharedMetricChunk } from '../../engine/storage/metricChunk.js';
import type { HeadBound, PeerHeadSource, PeerHeads, TimeRange } from '../../engine/storage/peerHeads.js';
import { SnapshotLogReader } from '../../engine/query/snapshotLogReader.js';
import { SnapshotMetricReader } from '../../engine/query/snapshotMetricReader.js';
import { HEAD_ROUTE, MAX_HAVE, MAX_MATCHERS, MAX_SELECTORS, type HeadRequest } from './headRequest.js';
import { askHolder, describeError, holdersOf, sameLayout, type Holder, type HolderCall, type HolderLayout } from './holders.js';
import type { PartitionOwner, PartitionOwners } from './partitionOwners.js';

/** The holder call (token, timeoutMs, maxBytes: SVC_INTERNAL_TOKEN, SVC_HEAD_FETCH_TIMEOUT_MS, SVC_HEAD_FETCH_MAX_BYTES) plus where the holders are. */
export interface PeerHeadClientOptions extends HolderCall {
  owners: PartitionOwners;
  /** partitions is the write log's partition count (SVC_WRITE_LOG_PARTITIONS): each must have a live owner. */
  partitions: number;
  now?: () => number;
  /** onFetch hears of every fetch from one holder: whether it gave heads, and the bytes received. */
  onFetch?: (outcome: 'ok' | 'failed', bytes: number) => void;
}

/** Want is one question to the holders: an org's heads of one signal, narrowed to some selectors or whole. */
interface Want {
  org: string;
  signal: Signal;
  selectors: ReadonlyArray<readonly LabelMatcher[]> | undefined;
  range: TimeRange | undefined;
}

/** KEPT_ANSWERS bounds the answers (per holder, org and signal) whose chunks are kept for reuse. */
const KEPT_ANSWERS = 256;

type Chunk = SharedMetricChunk | SharedLogChunk;

/**
 * PeerHeadClient fetches an org's heads from the processes that own the write log's
 * partitions, all of them at once, each within a timeout and a size limit. A holder that does
 * not answer, answers an error, or no longer holds a partition it was asked for is reported
 * as unavailable, never thrown: the query then answers from the segments and says the answer
 * is partial.
 *
 * A query names its selectors and time range, and the holders send only the series and
 * streams those match, within that range (see engine/storage/headFilter.ts), so a narrow query
 * over big heads moves little.
 *
 * Sealed chunks never change, so the chunks of each holder's last answer (per org, signal and
 * selectors) are kept and named in the next request: the holder then sends only what is new,
 * mostly the open tail, and a query costs the network what the heads took since the previous one.
 */
export class PeerHeadClient implements PeerHeadSource {
  private readonly now: () => number;
  /** kept holds, per holder, org and signal, the chunks of the last answer by id (oldest entry first, for eviction). */
  private readonly kept = new Map<string, Map<string, Chunk>>();

  constructor(private readonly options: PeerHeadClientOptions) {
    this.now = options.now ?? Date.now;
  }

  async fetch(org: string, signal: Signal, selectors?: ReadonlyArray<readonly LabelMatcher[]>, range?: TimeRange): Promise<PeerHeads> {
    // Selectors past the request's bounds (a query with hundreds of them) ask for the whole heads.
    const narrow = selectors !== undefined && selectors.length > 0 && selectors.length <= MAX_SELECTORS && selectors.every((m) => m.length <= MAX_MATCHERS);
    const want: Want = { org, signal, selectors: narrow ? selectors : undefined, range: range && finiteRange(range) };
    const owners = await this.readOwners();
    const first = await this.fetchFrom(owners, want);
    if (first.unavailable.length === 0 || this.options.owners.refresh === undefined) return first;
    // The owners may be a read kept from a moment ago: a takeover or a rebalance since then shows
    // as a failure. Read them afresh, and ask again only if a partition's holder changed (a
    // holder that is simply down is not asked twice).
    this.options.owners.refresh();
    const fresh = await this.readOwners();
    if (typeof fresh === 'string' || (typeof owners !== 'string' && sameLayout(this.holders(owners), this.holders(fresh)))) return first;
    return this.fetchFrom(fresh, want);
  }

  /** readOwners reads the partition owners, or says why they could not be read. */
  private async readOwners(): Promise<PartitionOwner[] | string> {
    try {
      return await this.options.owners.owners();
    } catch (err) {
      return describeError(err);
    }
  }

  private async fetchFrom(owners: PartitionOwner[] | string, want: Want): Promise<PeerHeads> {
    const out: PeerHeads = { metrics: [], logs: [], bounds: [], unavailable: [], metadata: [] };
    if (typeof owners === 'string') {
      out.unavailable.push(`partition owners could not be read: ${owners}`);
      return out;
    }
    const { holders, orphans } = this.holders(owners);
    if (orphans.length > 0) out.unavailable.push(`write-log partition(s) ${orphans.join(',')} have no live owner`);
    const answers = await Promise.all(holders.map((h) => this.fetchKeeping(h, want)));
    for (const [i, answer] of answers.entries()) {
      const holder = holders[i];
      if (typeof answer === 'string') {
        out.unavailable.push(`${holder.ownerId}: ${answer}`);
        continue;
      }
      if (answer.partitions !== undefined) {
        const missing = holder.partitions.filter((p) => answer.partitions![String(p)] === undefined);
        if (missing.length > 0) out.unavailable.push(`${holder.ownerId}: no longer holds write-log partition(s) ${missing.join(',')}`);
      }
      out.metrics.push(...answer.metrics.map((s) => new SnapshotMetricReader(s)));
      out.logs.push(...answer.logs.map((s) => new SnapshotLogReader(s)));
      out.metadata.push(...answer.metadata);
      // Each holder bounds its own segments (or, as a sole writer, every segment): see cutAfterHeads.
      out.bounds.push(headBound(answer));
    }
    return out;
  }

  /** holders groups the live owners by process; partitions without one are orphans. */
  private holders(owners: readonly PartitionOwner[]): HolderLayout {
    return holdersOf(owners, this.options.partitions, this.now());
  }

  /**
   * fetchKeeping asks one holder, naming the chunks kept from its last answer to the same
   * question (org, signal and selectors), and keeps the chunks of this one. The time range is
   * not part of the question: a panel's window moves with every refresh, and its sealed chunks
   * (sent whole, see headFilter.ts) are named across those refreshes.
   */
  private async fetchKeeping(holder: Holder, want: Want): Promise<HeadExport | string> {
    const { org, signal, selectors, range } = want;
    const key = `${holder.baseUrl}\u0000${org}\u0000${signal}\u0000${selectors === undefined ? '*' : selectorsKey(selectors)}`;
    const kept = this.kept.get(key) ?? new Map<string, Chunk>();
    const known: KnownChunks = {
      metric: (id) => {
        const c = kept.get(id);
        return c !== undefined && 'refs' in c ? c : undefined;
      },
      log: (id) => {
        const c = kept.get(id);
        return c !== undefined && 'groups' in c ? c : undefined;
      },
    };
    const have = [...kept.keys()].slice(0, MAX_HAVE);
    const request: HeadRequest = {
      org,
      signals: [signal],
      partitions: holder.partitions,
      ...(have.length > 0 ? { have } : {}),
      ...(selectors !== undefined ? { selectors: selectors.map((s) => [...s]) } : {}),
      ...(range !== undefined ? { minMs: range.minMs, maxMs: range.maxMs } : {}),
    };
    const answer = await this.fetchOne(holder, request, known);
    if (typeof answer === 'string') {
      this.options.onFetch?.('failed', 0);
      return answer;
    }
    const next = new Map<string, Chunk>();
    for (const s of [...answer.metrics, ...answer.logs]) for (const c of s.chunks) next.set(c.id, c);
    this.kept.delete(key);
    this.kept.set(key, next);
    if (this.kept.size > KEPT_ANSWERS) this.kept.delete(this.kept.keys().next().value!);
    return answer;
  }

  /** fetchOne asks one holder; a failure (a malformed answer included) is returned as its description. */
  private async fetchOne(holder: Holder, request: HeadRequest, known: KnownChunks): Promise<HeadExport | string> {
    const body = await askHolder(holder, HEAD_ROUTE, request, this.options);
    if (typeof body === 'string') return body;
    try {
      const decoded = decodeHeadExport(body, known);
      this.options.onFetch?.('ok', body.byteLength);
      return decoded;
    } catch (err) {
      return describeError(err);
    }
  }

}

/**
 * finiteRange is the part of a range a request can carry: JSON has no infinities, and an
 * unbounded end narrows nothing. Undefined when neither end is bounded.
 */
function finiteRange(range: TimeRange): TimeRange | undefined {
  const minMs = Number.isFinite(range.minMs) ? range.minMs : -Number.MAX_VALUE;
  const maxMs = Number.isFinite(range.maxMs) ? range.maxMs : Number.MAX_VALUE;
  return minMs === -Number.MAX_VALUE && maxMs === Number.MAX_VALUE ? undefined : { minMs, maxMs };
}

/** headBound is what one holder's answer says about the segments it cut (see HeadBound). */
function headBound(answer: HeadExport): HeadBound {
  if (answer.writer === undefined) return { segmentsBefore: answer.segmentsBefore };
  const covered: Record<string, number> = {};
  for (const [p, positions] of Object.entries(answer.partitions ?? {})) covered[p] = positions.coveredThrough;
  return { writer: answer.writer, segmentsBefore: answer.segmentsBefore, covered };
}
