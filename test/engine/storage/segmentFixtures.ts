/**
 * Shared data and snapshots for the segment tests: a deterministic mix of metrics (several
 * metrics and series, out-of-order rewrites, staleness markers) and logs (several streams,
 * attributes, equal timestamps) for a few orgs, and a canonical dump of everything an org's
 * views answer, so "before" and "after" a cut, restart or compaction can be compared whole.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LogEntry } from '../../../engine/storage/logHead.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import type { MetricSeries } from '../../../engine/storage/metricHead.js';
import type { OrgLogView, OrgMetricView } from '../../../engine/storage/orgViews.js';
import { Storage, type StorageEvent, type StorageOptions } from '../../../engine/storage/storage.js';

export const ALL_MS = [-Infinity, Infinity] as const;
export const ALL_NS = [-(2n ** 63n), 2n ** 63n - 1n] as const;

export function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'sluice-seg-'));
}

/** openStorage opens storage with background work off (tests drive cuts) and collects events. */
export async function openStorage(dir: string, extra: Partial<StorageOptions> = {}): Promise<{ storage: Storage; events: StorageEvent[] }> {
  const events: StorageEvent[] = [];
  const storage = await Storage.open({
    dir,
    maintenanceIntervalMs: 0,
    compactionIntervalMs: 0,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { storage, events };
}

const f64 = (xs: number[]): Float64Array => Float64Array.from(xs);

/** metricBatch is the `round`-th batch of samples for an org: each round adds later samples and rewrites one earlier one. */
export function metricBatch(org: string, round: number): MetricSeries[] {
  const base = 1_000_000 + round * 60_000;
  const out: MetricSeries[] = [];
  for (const job of ['api', 'web']) {
    for (const code of ['200', '500']) {
      const ts = [base, base + 15_000, base + 30_000, base + 45_000];
      const values = ts.map((t, i) => (t / 1000) * (code === '200' ? 2 : 1) + i + org.length);
      out.push({ labels: { __name__: 'http_requests_total', job, code }, timestampsMs: f64(ts), values: f64(values) });
    }
    out.push({ labels: { __name__: 'up', job }, timestampsMs: f64([base, base + 30_000]), values: f64([1, round % 2]) });
  }
  // An out-of-order rewrite of the previous round's first timestamp: the newest write must win.
  if (round > 0) {
    out.push({ labels: { __name__: 'up', job: 'api' }, timestampsMs: f64([base - 60_000]), values: f64([100 + round]) });
  }
  // A series that goes stale at the end of the round.
  out.push({
    labels: { __name__: 'temperature', room: `r${round % 3}` },
    timestampsMs: f64([base + 1, base + 2]),
    values: f64([20 + round, 0]),
    stale: Uint8Array.from([0, 1]),
  });
  return out;
}

/** logBatch is the `round`-th batch of log lines for an org, with repeated timestamps and attribute sets. */
export function logBatch(org: string, round: number): LogEntry[] {
  const base = BigInt(1_000_000 + round * 60_000) * 1_000_000n;
  const out: LogEntry[] = [];
  for (let i = 0; i < 12; i++) {
    const service = i % 3 === 0 ? 'checkout' : i % 3 === 1 ? 'cart' : 'search';
    out.push({
      // Pairs of lines share a timestamp, so tie order is exercised.
      timestampNs: base + BigInt(Math.floor(i / 2)) * 1_000_000n,
      message: `${org} round ${round} line ${i} ünïcødé`,
      level: i % 4 === 0 ? 'error' : 'info',
      tags: { service_name: service, k8s_pod_name: `${service}-${i % 2}`, route: `/r${i % 5}`, ...(i === 7 ? { user: 'bob' } : {}) },
    });
  }
  // A late line with the previous round's first timestamp and the same tags as that round's
  // first line: equal timestamps across head and segments must keep arrival order.
  if (round > 0) {
    out.push({
      timestampNs: base - 60_000n * 1_000_000n,
      message: `${org} late line of round ${round}`,
      level: 'error',
      tags: { service_name: 'checkout', k8s_pod_name: 'checkout-0', route: '/r0' },
    });
  }
  return out;
}

const METRIC_QUERIES: Array<{ matchers: LabelMatcher[]; min: number; max: number }> = [
  { matchers: [], min: -Infinity, max: Infinity },
  { matchers: [{ name: '__name__', type: '=', value: 'up' }], min: -Infinity, max: Infinity },
  { matchers: [{ name: '__name__', type: '=~', value: 'http_.*' }, { name: 'code', type: '!=', value: '200' }], min: 1_050_000, max: 1_130_000 },
  { matchers: [{ name: 'job', type: '=', value: 'web' }], min: 1_000_000, max: 1_000_000 },
];

const LOG_QUERIES: Array<{ matchers: LabelMatcher[]; min: bigint; max: bigint }> = [
  { matchers: [], min: ALL_NS[0], max: ALL_NS[1] },
  { matchers: [{ name: 'service_name', type: '=', value: 'cart' }], min: ALL_NS[0], max: ALL_NS[1] },
  { matchers: [{ name: 'level', type: '=', value: 'error' }, { name: 'route', type: '=~', value: '/r[01]' }], min: 1_030_000n * 1_000_000n, max: 1_100_000n * 1_000_000n },
  { matchers: [{ name: 'user', type: '=', value: 'bob' }], min: ALL_NS[0], max: ALL_NS[1] },
];

/** bitsHex renders a value array's raw bits, so staleness markers and NaN payloads compare exactly. */
function bitsHex(values: Float64Array): string[] {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  const out: string[] = [];
  for (let i = 0; i < values.length; i++) out.push(words[2 * i + 1].toString(16) + ':' + words[2 * i].toString(16));
  return out;
}

/** snapshot dumps, in a canonical order, everything an org's views answer for a fixed set of selections. */
export function snapshot(storage: Storage, org: string): unknown {
  return snapshotOf(storage.metrics(org), storage.logs(org));
}

/** snapshotOf is `snapshot` over any pair of views, such as the ones a worker rebuilds from a task. */
export function snapshotOf(metrics: OrgMetricView, logs: OrgLogView): unknown {
  const sortByKey = <T>(xs: T[], key: (x: T) => string): T[] => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return {
    metrics: METRIC_QUERIES.map((q) =>
      sortByKey(
        metrics.select(q.matchers, q.min, q.max).map((s) => ({ labels: JSON.stringify(s.labels), t: [...s.timestampsMs], v: bitsHex(s.values) })),
        (x) => x.labels,
      ),
    ),
    labelNames: metrics.labelNames([], ...ALL_MS),
    labelValues: metrics.labelValues('job', [], ...ALL_MS),
    labelSets: (() => {
      const sets: string[] = [];
      metrics.forEachLabelSet([{ name: '__name__', type: '!=', value: 'temperature' }], ...ALL_MS, (l) => void sets.push(JSON.stringify(l)));
      return sets.sort();
    })(),
    logs: LOG_QUERIES.map((q) =>
      sortByKey(
        logs.select(q.matchers, q.min, q.max).map((s) => ({ tags: JSON.stringify(s.tags), ts: [...s.timestampsNs].map(String), messages: s.messages })),
        (x) => x.tags,
      ),
    ),
    tagSets: (() => {
      const sets: string[] = [];
      logs.forEachTagSet([{ name: 'service_name', type: '!=', value: 'search' }], ...ALL_NS, (t) => void sets.push(JSON.stringify(t)));
      return sets.sort();
    })(),
  };
}

/** fill writes rounds [from, to) of metrics and logs for each org. */
export async function fill(storage: Storage, orgs: readonly string[], from: number, to: number): Promise<void> {
  for (let round = from; round < to; round++) {
    for (const org of orgs) {
      await storage.appendMetrics(org, metricBatch(org, round), round === 0 ? [{ name: 'up', type: 'gauge', unit: '', help: `Up for ${org}.` }] : []);
      await storage.appendLogs(org, logBatch(org, round));
    }
  }
}
