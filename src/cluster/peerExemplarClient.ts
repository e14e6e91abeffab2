import type { SeriesExemplars } from '../../engine/storage/exemplarStore.js';
import type { LabelMatcher } from '../../engine/storage/matchers.js';
import { mergeSeriesExemplars, type ExemplarAnswer, type ExemplarReader } from '../exemplars/exemplarReader.js';
import { EXEMPLAR_ROUTE, type ExemplarRequest } from './exemplarRoutes.js';
import { MAX_MATCHERS, MAX_SELECTORS } from './headRequest.js';
import { askHolder, describeError, holdersOf, type Holder, type HolderCall } from './holders.js';
import type { PartitionOwners } from './partitionOwners.js';

/** The holder call (token, timeoutMs, maxBytes: SVC_INTERNAL_TOKEN, SVC_HEAD_FETCH_TIMEOUT_MS, SVC_HEAD_FETCH_MAX_BYTES) plus where the holders are. */
export interface PeerExemplarClientOptions extends HolderCall {
  owners: PartitionOwners;
  /** partitions is the write log's partition count (SVC_WRITE_LOG_PARTITIONS). */
  partitions: number;
  now?: () => number;
}

/** UNBOUNDED is past any time a request needs to name: JSON carries no infinities. */
const UNBOUNDED = 8.64e15;

/**
 * PeerExemplarClient is a query process's exemplar reader. Remote write's exemplars travel
 * through the write log with their series' partition and are kept by the ingester holding it,
 * so the client asks every partition owner at once (as PeerHeadClient does for heads), each
 * within a timeout and a size limit, and merges the answers. A holder that does not answer,
 * and a partition nobody holds, are reported as unavailable, never thrown.
 */
export class PeerExemplarClient implements ExemplarReader {
  private readonly now: () => number;

  constructor(private readonly options: PeerExemplarClientOptions) {
    this.now = options.now ?? Date.now;
  }

  async select(org: string, matcherSets: readonly (readonly LabelMatcher[])[], startMs: number, endMs: number): Promise<ExemplarAnswer> {
    if (matcherSets.length === 0) return { series: [], unavailable: [] };
    if (matcherSets.length > MAX_SELECTORS || matcherSets.some((m) => m.length > MAX_MATCHERS)) {
      return { series: [], unavailable: [`a query with more than ${MAX_SELECTORS} selectors or ${MAX_MATCHERS} matchers in one cannot ask for exemplars`] };
    }
    let owners;
    try {
      owners = await this.options.owners.owners();
    } catch (err) {
      return { series: [], unavailable: [`partition owners could not be read: ${describeError(err)}`] };
    }
    const { holders, orphans } = holdersOf(owners, this.options.partitions, this.now());
    const unavailable = orphans.length > 0 ? [`write-log partition(s) ${orphans.join(',')} have no live owner`] : [];
    const request: ExemplarRequest = {
      org,
      selectors: matcherSets.map((s) => [...s]),
      minMs: Math.max(startMs, -UNBOUNDED),
      maxMs: Math.min(endMs, UNBOUNDED),
    };
    const answers = await Promise.all(holders.map((h) => this.ask(h, request)));
    const found: SeriesExemplars[][] = [];
    answers.forEach((answer, i) => {
      if (typeof answer === 'string') unavailable.push(`${holders[i].ownerId}: ${answer}`);
      else found.push(answer);
    });
    return { series: mergeSeriesExemplars(found), unavailable };
  }

  /** ask asks one holder; a failure is returned as its description. */
  private async ask(holder: Holder, request: ExemplarRequest): Promise<SeriesExemplars[] | string> {
    const body = await askHolder(holder, EXEMPLAR_ROUTE, request, this.options);
    if (typeof body === 'string') return body;
    return parseAnswer(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  }
}

/** NON_FINITE are the values a holder sends as strings, JSON having no such numbers. */
const NON_FINITE: ReadonlySet<string> = new Set(['NaN', 'Infinity', '-Infinity']);

/** parseAnswer checks a holder's answer enough that a malformed one is a failure, not a crash later. */
function parseAnswer(text: string): SeriesExemplars[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'answered something that is not JSON';
  }
  const series = (value as { series?: unknown } | null)?.series;
  const labelsOk = (l: unknown) => l !== null && typeof l === 'object' && !Array.isArray(l) && Object.values(l).every((v) => typeof v === 'string');
  const ok =
    Array.isArray(series) &&
    series.every(
      (s: { seriesLabels?: unknown; exemplars?: unknown }) =>
        labelsOk(s?.seriesLabels) &&
        Array.isArray(s.exemplars) &&
        s.exemplars.every((e: { labels?: unknown; value?: unknown; timestampMs?: unknown }) => labelsOk(e?.labels) && (typeof e.value === 'number' || NON_FINITE.has(e.value as string)) && typeof e.timestampMs === 'number'),
    );
  if (!ok) return 'answered exemplars in an unexpected shape';
  for (const s of series as SeriesExemplars[]) for (const e of s.exemplars) e.value = Number(e.value);
  return series as SeriesExemplars[];
}
