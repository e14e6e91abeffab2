/**
 * Exemplars: a sample's example (typically a trace id) that remote write carries next to a
 * series' samples. They are kept as Prometheus keeps them: in memory, in one circular buffer
 * per org that holds at most `maxPerOrg` exemplars of all the org's series together, the
 * oldest written overwritten first, so memory is bounded however many series send them. A
 * series' exemplars must come in time order; an exemplar equal to its series' newest is a
 * duplicate (a resend) and ignored, an older one is refused as out of order, as Prometheus
 * refuses it.
 *
 * The store survives a restart through a side file the service writes when it stops (see
 * `snapshot` / `restore`); exemplars written since the last clean stop are lost on a crash,
 * as they are in Prometheus without its WAL exemplar records. They are not part of the WAL.
 */
import { labelsKey, sortLabels } from './labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from './matchers.js';

/** Exemplar is one example: its own labels (e.g. trace_id), its value and when it was seen. */
export interface Exemplar {
  labels: Record<string, string>;
  value: number;
  timestampMs: number;
}

/** SeriesExemplars is the exemplars of one series, as written and as answered. */
export interface SeriesExemplars {
  seriesLabels: Record<string, string>;
  exemplars: Exemplar[];
}

/**
 * MAX_EXEMPLAR_LABEL_RUNES bounds the characters of an exemplar's label names and values
 * together, as OpenMetrics and Prometheus do.
 */
export const MAX_EXEMPLAR_LABEL_RUNES = 128;

/** DEFAULT_MAX_EXEMPLARS_PER_ORG is Prometheus' default exemplar storage size. */
export const DEFAULT_MAX_EXEMPLARS_PER_ORG = 100_000;

interface Slot {
  series: SeriesIndex;
  exemplar: Exemplar;
}

interface SeriesIndex {
  key: string;
  labels: Record<string, string>;
  /** slots of the ring that hold this series' exemplars */
  held: number;
  newest: Exemplar | undefined;
}

/** OrgExemplars is one org's ring and the index of the series it holds. */
class OrgExemplars {
  private readonly ring: Slot[] = [];
  private next = 0;
  readonly series = new Map<string, SeriesIndex>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.ring.length;
  }

  /** add keeps one exemplar of a series; false when refused (out of order) or ignored (duplicate). */
  add(key: string, seriesLabels: Record<string, string>, e: Exemplar): boolean {
    const existing = this.series.get(key);
    if (existing?.newest !== undefined) {
      if (e.timestampMs === existing.newest.timestampMs && sameExemplar(e, existing.newest)) return false;
      if (e.timestampMs <= existing.newest.timestampMs) return false;
    }
    // Make room first: the slot overwritten may hold this series' last exemplar.
    const full = this.ring.length >= this.capacity;
    if (full) {
      const evicted = this.ring[this.next].series;
      if (--evicted.held === 0) this.series.delete(evicted.key);
    }
    const index = existing ?? { key, labels: seriesLabels, held: 0, newest: undefined };
    if (index.held === 0) this.series.set(key, index);
    const slot: Slot = { series: index, exemplar: e };
    if (full) {
      this.ring[this.next] = slot;
      this.next = (this.next + 1) % this.capacity;
    } else {
      this.ring.push(slot);
    }
    index.held++;
    index.newest = e;
    return true;
  }

  /** inOrder visits the held exemplars oldest first. */
  *inOrder(): Generator<Slot> {
    const n = this.ring.length;
    const start = n < this.capacity ? 0 : this.next;
    for (let i = 0; i < n; i++) yield this.ring[(start + i) % n];
  }
}

function sameExemplar(a: Exemplar, b: Exemplar): boolean {
  if (!Object.is(a.value, b.value)) return false;
  const ak = Object.keys(a.labels);
  if (ak.length !== Object.keys(b.labels).length) return false;
  for (const k of ak) if (a.labels[k] !== b.labels[k]) return false;
  return true;
}

/** exemplarLabelRunes counts the characters (code points) of an exemplar's label names and values. */
export function exemplarLabelRunes(labels: Readonly<Record<string, string>>): number {
  let n = 0;
  for (const [k, v] of Object.entries(labels)) {
    for (const _ of k) n++;
    for (const _ of v) n++;
  }
  return n;
}

/** ExemplarSnapshot is the side file's content: each org's exemplars, oldest first. */
export type ExemplarSnapshot = Record<string, SeriesExemplars[]>;

/** ExemplarStore holds every org's exemplars; orgs never see each other's. */
export class ExemplarStore {
  private readonly orgs = new Map<string, OrgExemplars>();

  constructor(readonly maxPerOrg: number = DEFAULT_MAX_EXEMPLARS_PER_ORG) {}

  /**
   * add keeps the exemplars of each series and returns how many were kept; refused and
   * duplicate ones are not counted. With a capacity of 0 nothing is kept.
   */
  add(org: string, batch: readonly SeriesExemplars[]): number {
    if (this.maxPerOrg <= 0 || batch.length === 0) return 0;
    let data = this.orgs.get(org);
    if (data === undefined) this.orgs.set(org, (data = new OrgExemplars(this.maxPerOrg)));
    let kept = 0;
    for (const s of batch) {
      const key = labelsKey(sortLabels(s.seriesLabels));
      for (const e of s.exemplars) if (data.add(key, s.seriesLabels, e)) kept++;
    }
    return kept;
  }

  /** count is how many exemplars the org holds. */
  count(org: string): number {
    return this.orgs.get(org)?.size ?? 0;
  }

  /**
   * select returns the exemplars in [startMs, endMs] of the series matching any of the matcher
   * sets, grouped by series in the order the series first appear, each series' oldest first.
   */
  select(org: string, matcherSets: readonly (readonly LabelMatcher[])[], startMs: number, endMs: number): SeriesExemplars[] {
    const data = this.orgs.get(org);
    if (data === undefined || matcherSets.length === 0) return [];
    const compiled = matcherSets.map((m) => compileMatchers(m));
    const matching = new Set<SeriesIndex>();
    for (const s of data.series.values()) if (compiled.some((m) => matchesAll(s.labels, m))) matching.add(s);
    const out = new Map<SeriesIndex, SeriesExemplars>();
    for (const slot of data.inOrder()) {
      const t = slot.exemplar.timestampMs;
      if (t < startMs || t > endMs || !matching.has(slot.series)) continue;
      let group = out.get(slot.series);
      if (group === undefined) out.set(slot.series, (group = { seriesLabels: slot.series.labels, exemplars: [] }));
      group.exemplars.push(slot.exemplar);
    }
    return [...out.values()];
  }

  /** snapshot lists every org's exemplars oldest first, for the side file. */
  snapshot(): ExemplarSnapshot {
    const out: ExemplarSnapshot = {};
    for (const [org, data] of this.orgs) {
      const list: SeriesExemplars[] = [];
      for (const slot of data.inOrder()) list.push({ seriesLabels: slot.series.labels, exemplars: [slot.exemplar] });
      if (list.length > 0) out[org] = list;
    }
    return out;
  }

  /** restore adds a snapshot's exemplars back, oldest first, under today's capacity. */
  restore(snapshot: ExemplarSnapshot): void {
    for (const [org, list] of Object.entries(snapshot)) this.add(org, list);
  }
}
