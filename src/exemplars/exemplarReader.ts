import { labelsKey, sortLabels } from '../../engine/storage/labels.js';
import type { ExemplarStore, SeriesExemplars } from '../../engine/storage/exemplarStore.js';
import type { LabelMatcher } from '../../engine/storage/matchers.js';

/** ExemplarAnswer is the exemplars found and the places that could not be asked (the answer lacks theirs). */
export interface ExemplarAnswer {
  series: SeriesExemplars[];
  unavailable: string[];
}

/**
 * ExemplarReader answers the exemplars of the series some matcher sets select, in a time range
 * (ms, inclusive): from this process's own store, or on a query process from the ingesters
 * that keep them.
 */
export interface ExemplarReader {
  select(org: string, matcherSets: readonly (readonly LabelMatcher[])[], startMs: number, endMs: number): Promise<ExemplarAnswer>;
}

/** localExemplars reads this process's store. */
export function localExemplars(store: ExemplarStore): ExemplarReader {
  return { select: async (org, sets, startMs, endMs) => ({ series: store.select(org, sets, startMs, endMs), unavailable: [] }) };
}

/**
 * mergeSeriesExemplars joins answers of several holders: a series' exemplars (normally all with
 * one holder, but a partition changing hands may leave some with each) come once each, oldest
 * first, series in the order they first appear.
 */
export function mergeSeriesExemplars(answers: readonly (readonly SeriesExemplars[])[]): SeriesExemplars[] {
  const bySeries = new Map<string, SeriesExemplars>();
  for (const answer of answers) {
    for (const s of answer) {
      const key = labelsKey(sortLabels(s.seriesLabels));
      const have = bySeries.get(key);
      if (have === undefined) bySeries.set(key, { seriesLabels: s.seriesLabels, exemplars: [...s.exemplars] });
      else have.exemplars.push(...s.exemplars);
    }
  }
  for (const s of bySeries.values()) {
    s.exemplars.sort((a, b) => a.timestampMs - b.timestampMs);
    s.exemplars = s.exemplars.filter((e, i, all) => i === 0 || !sameExemplar(all[i - 1], e));
  }
  return [...bySeries.values()];
}

function sameExemplar(a: SeriesExemplars['exemplars'][number], b: SeriesExemplars['exemplars'][number]): boolean {
  return a.timestampMs === b.timestampMs && Object.is(a.value, b.value) && labelsKey(sortLabels(a.labels)) === labelsKey(sortLabels(b.labels));
}
