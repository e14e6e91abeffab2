import type { Storage } from '../../engine/index.js';
import { msToNs, type Listing } from './listing.js';

/**
 * The services listing names what an org's telemetry comes from, per signal:
 * - logs: the values of `service_name` (OTLP `service.name`; Loki pushes carry it as a label);
 * - metrics: a series' `service_name` label when it has one, otherwise its `job` label (OTLP
 *   conversion and Prometheus scrapes both name the service in `job`).
 * A name seen in both signals is one entry with both.
 */

/** Service is one entry of the listing. */
export interface Service {
  name: string;
  signals: Array<'logs' | 'metrics'>;
}

/** LOGS and METRICS are bits of the per-name signal mask, so marking a name allocates nothing. */
const LOGS = 1;
const METRICS = 2;

/**
 * listServices names the services with data in [startMs, endMs], sorted, with the signals each
 * has. Services are few, so both signals are scanned in full and every entry's signals are exact.
 */
export function listServices(storage: Storage, org: string, startMs: number, endMs: number, limit: number): Listing<Service> {
  const signals = new Map<string, number>();
  const mark = (name: string, signal: number): void => {
    signals.set(name, (signals.get(name) ?? 0) | signal);
  };
  storage
    .logTagSets(org)
    .forEachTagSet([{ name: 'service_name', type: '!=', value: '' }], msToNs(startMs), msToNs(endMs), (tags) => mark(tags.service_name, LOGS));
  storage.metricLabelSets(org).forEachLabelSet([], startMs, endMs, (labels) => {
    const name = labels.service_name ?? labels.job;
    if (name !== undefined) mark(name, METRICS);
  });
  const names = [...signals.keys()].sort();
  return {
    data: names.slice(0, limit).map((name) => {
      const bits = signals.get(name) ?? 0;
      const list: Service['signals'] = [];
      if (bits & LOGS) list.push('logs');
      if (bits & METRICS) list.push('metrics');
      return { name, signals: list };
    }),
    truncated: names.length > limit,
  };
}
