import type { LabelMatcher, Storage } from '../../engine/index.js';
import type { LokiRange } from './lokiParams.js';

/**
 * /detected_labels: the labels worth offering as filters for the streams of a selector, as
 * Grafana's Logs Drilldown lists them. Like Loki, a label qualifies when it is one of the
 * usual topology labels, or when it splits the streams into a few groups (2 to 50 values)
 * that are not all identifiers. Read from the stream index only, never a line.
 */

/** TOPOLOGY_LABELS are offered whatever their cardinality, as Loki offers them. */
const TOPOLOGY_LABELS: ReadonlySet<string> = new Set(['cluster', 'namespace', 'instance', 'pod']);

/** MAX_CARDINALITY is the most values a label may take and still be offered. */
const MAX_CARDINALITY = 50;

/** MAX_LABELS bounds how many label names one answer tracks. */
const MAX_LABELS = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^-?\d+(?:\.\d+)?$/;

/** allIdentifiers tells values that are all UUIDs or numbers: a label of ids is no filter. */
function allIdentifiers(values: ReadonlySet<string>): boolean {
  for (const v of values) if (!UUID.test(v) && !NUMBER.test(v)) return false;
  return true;
}

export interface DetectedLabel {
  label: string;
  cardinality: number;
}

/** detectedLabels lists the qualifying labels of the streams matching `matchers` with lines in the range, sorted by name. */
export function detectedLabels(storage: Storage, org: string, matchers: LabelMatcher[], range: LokiRange): { detectedLabels: DetectedLabel[] } {
  // Values are tracked up to one past the limit: enough to tell a label is over it.
  const valuesByName = new Map<string, Set<string>>();
  storage.logTagSets(org).forEachTagSet(matchers, range.startNs, range.endNs, (tags) => {
    for (const name in tags) {
      let values = valuesByName.get(name);
      if (values === undefined) {
        if (valuesByName.size >= MAX_LABELS) continue;
        valuesByName.set(name, (values = new Set()));
      }
      if (values.size <= MAX_CARDINALITY) values.add(tags[name]);
    }
    return true;
  });
  const detected: DetectedLabel[] = [];
  for (const [label, values] of [...valuesByName].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const offered = TOPOLOGY_LABELS.has(label) || (values.size > 1 && values.size <= MAX_CARDINALITY && !allIdentifiers(values));
    if (offered) detected.push({ label, cardinality: values.size });
  }
  return { detectedLabels: detected };
}
