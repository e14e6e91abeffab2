import type { LabelMatcher, Labels, Storage } from '../../engine/index.js';
import { DistinctLabelSets, DistinctStrings, type Listing } from './listing.js';

/**
 * The three listings both signals answer, over label sets only (never samples or lines): the
 * keys, the values of one key, and the label sets themselves. The helper endpoints and the
 * tool gateway list through these, so a listing means the same wherever it is asked for.
 */

/** LabelSetScan visits the label sets of one signal, org and window that match; the visitor returns false to stop. */
export type LabelSetScan = (matchers: readonly LabelMatcher[], visit: (labels: Labels) => boolean) => void;

/** logTagScan scans an org's log streams between two nanosecond bounds. */
export function logTagScan(storage: Storage, org: string, minNs: bigint, maxNs: bigint): LabelSetScan {
  return (matchers, visit) => storage.logTagSets(org).forEachTagSet(matchers, minNs, maxNs, visit);
}

/** metricLabelScan scans an org's series with a sample between two millisecond bounds. */
export function metricLabelScan(storage: Storage, org: string, minMs: number, maxMs: number): LabelSetScan {
  return (matchers, visit) => storage.metricLabelSets(org).forEachLabelSet(matchers, minMs, maxMs, visit);
}

/** listKeys lists the keys of the matching label sets, leaving out `except` (a key the request already fixed). */
export function listKeys(scan: LabelSetScan, matchers: readonly LabelMatcher[], limit: number, except?: string): Listing<string> {
  const keys = new DistinctStrings(limit);
  scan(matchers, (labels) => {
    for (const key in labels) if (key !== except && !keys.add(key)) return false;
    return true;
  });
  return keys.listing();
}

/** listValues lists the values of `key`; only label sets carrying the key can contribute one. */
export function listValues(scan: LabelSetScan, matchers: readonly LabelMatcher[], key: string, limit: number): Listing<string> {
  const values = new DistinctStrings(limit);
  scan([...matchers, { name: key, type: '!=', value: '' }], (labels) => values.add(labels[key]));
  return values.listing();
}

/** listLabelSets lists the matching label sets themselves (series or streams). */
export function listLabelSets(scan: LabelSetScan, matchers: readonly LabelMatcher[], limit: number): Listing<Labels> {
  const sets = new DistinctLabelSets(limit);
  scan(matchers, (labels) => sets.add(labels));
  return sets.listing();
}
