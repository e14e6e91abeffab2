import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateLogQLRange, iterateLogQuery } from '../../../engine/logql/eval/index.js';
import { parseLogQL } from '../../../engine/logql/index.js';
import { evaluateRange } from '../../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { unpackSeries } from '../../../engine/query/packing.js';
import { logViewOf, metricViewOf, shareLogs, shareMetrics, type LogTaskData, type MetricTaskData } from '../../../engine/query/taskData.js';
import { unpackRows, withLine } from '../../../engine/query/rowPacking.js';
import { runTask, taskTransferables, type QueryTask } from '../../../engine/query/tasks.js';
import { SharedSegmentReaders } from '../../../engine/storage/sharedSegments.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { ALL_MS, ALL_NS, fill, openStorage, snapshot, snapshotOf, tempDir } from './segmentFixtures.js';

/** acrossThreads copies a task the way postMessage does: cloned, with the listed buffers moved and shared memory shared. */
function acrossThreads<T extends QueryTask>(task: T): T {
  return structuredClone(task, { transfer: taskTransferables(task) });
}

const ORGS = ['org-a', 'org-b'];
const EVERYTHING = [{ matchers: [], minMs: ALL_MS[0], maxMs: ALL_MS[1] }];
const ALL_LOGS = [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }];

describe('segments shared with worker threads', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    // Two segments per org and signal, then a head that rewrites timestamps stored in them.
    await fill(storage, ORGS, 0, 2);
    await storage.cut();
    await fill(storage, ORGS, 2, 4);
    await storage.cut();
    await fill(storage, ORGS, 4, 6);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  const metricData = (org: string): MetricTaskData => acrossThreads({ kind: 'promql-range', query: '', startMs: 0, endMs: 0, stepMs: 1, lookbackMs: 0, maxSamples: 0, data: shareMetrics(storage.metrics(org), EVERYTHING) }).data;
  const logData = (org: string): LogTaskData =>
    acrossThreads({ kind: 'logql-raw', query: '', startNs: 0n, endNs: 0n, limit: 0, direction: 'forward', data: shareLogs(storage.logs(org), ALL_LOGS) }).data;

  it('ships segment bytes and head snapshots as shared memory', () => {
    const data = shareMetrics(storage.metrics('org-a'), EVERYTHING);
    expect(data.segments).toHaveLength(2);
    for (const s of data.segments) expect(s.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (const h of data.heads) for (const c of h.chunks) expect(c.values.buffer).toBeInstanceOf(SharedArrayBuffer);
    const headSamples = data.heads.reduce((n, h) => n + h.chunks.reduce((m, c) => m + c.samples, 0), 0);
    const allSamples = storage.metrics('org-a').select([], ...ALL_MS).reduce((n, s) => n + s.timestampsMs.length, 0);
    expect(headSamples).toBeGreaterThan(0);
    expect(headSamples).toBeLessThan(allSamples / 2);
    // Across a thread boundary the bytes stay shared memory (a clone would be a plain ArrayBuffer).
    for (const s of metricData('org-a').segments) expect(s.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (const h of metricData('org-a').heads) for (const c of h.chunks) expect(c.timestampsMs.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (const s of logData('org-a').segments) expect(s.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('lets a worker answer every selection exactly as the store does', () => {
    const readers = new SharedSegmentReaders();
    for (const org of ORGS) {
      const worker = snapshotOf(metricViewOf(metricData(org), readers), logViewOf(logData(org), readers));
      expect(worker).toEqual(snapshot(storage, org));
    }
  });

  it('leaves out the segments the catalog rules out', () => {
    const headOnly = shareMetrics(storage.metrics('org-a'), [{ matchers: [], minMs: 1_000_000 + 4 * 60_000, maxMs: ALL_MS[1] }]);
    expect(headOnly.segments).toHaveLength(0);
    const noSuchMetric = shareMetrics(storage.metrics('org-a'), [{ matchers: [{ name: '__name__', type: '=', value: 'nope' }], minMs: ALL_MS[0], maxMs: ALL_MS[1] }]);
    expect(noSuchMetric.segments).toHaveLength(0);
    const oneOfTwo = shareLogs(storage.logs('org-a'), [{ matchers: [], minNs: 0n, maxNs: BigInt(1_000_000 + 30_000) * 1_000_000n }]);
    expect(oneOfTwo.segments).toHaveLength(1);
  });

  it('evaluates tasks on shared segments like a direct evaluation over the store', () => {
    const metrics = storage.metrics('org-b');
    for (const q of ['sum by (job) (rate(http_requests_total[2m]))', 'up', 'max_over_time(temperature[5m])']) {
      const expr = parseAndCheckPromQL(q);
      const task = acrossThreads({ kind: 'promql-range', query: q, startMs: 1_000_000, endMs: 1_400_000, stepMs: 15_000, lookbackMs: 300_000, maxSamples: 1e6, data: shareMetrics(metrics, EVERYTHING) });
      const { result } = runTask(task);
      if (!('series' in result)) throw new Error(`unexpected ${JSON.stringify(result)}`);
      const direct = evaluateRange(expr, metrics, 1_000_000, 1_400_000, 15_000, { lookbackDeltaMs: 300_000, maxSamples: 1e6 });
      const byLabels = (xs: Array<{ labels: object; timestampsMs: Float64Array; values: Float64Array }>) =>
        xs.map((s) => ({ l: JSON.stringify(s.labels), t: [...s.timestampsMs], v: [...s.values] })).sort((a, b) => (a.l < b.l ? -1 : 1));
      expect(byLabels(unpackSeries(result.series)), q).toEqual(byLabels(direct.series));
    }

    const logs = storage.logs('org-b');
    const countQuery = 'sum by (service_name) (count_over_time({service_name=~".+"} |= "line" [1m]))';
    const range = runTask(acrossThreads({ kind: 'logql-range', query: countQuery, startMs: 1_000_000, endMs: 1_400_000, stepMs: 30_000, maxSamples: 1e6, maxSeries: 1000, data: shareLogs(logs, ALL_LOGS) })).result;
    if (!('series' in range)) throw new Error(`unexpected ${JSON.stringify(range)}`);
    const directRange = evaluateLogQLRange(parseLogQL(countQuery), logs, 1_000_000, 1_400_000, 30_000, { maxSamples: 1e6, maxSeries: 1000 });
    expect(unpackSeries(range.series).map((s) => [s.labels, [...s.values]])).toEqual(directRange.series.map((s) => [s.labels, [...s.values]]));

    const rawQuery = '{service_name="checkout"} |= "round"';
    const raw = runTask(acrossThreads({ kind: 'logql-raw', query: rawQuery, startNs: ALL_NS[0], endNs: ALL_NS[1], limit: 1000, direction: 'backward', data: shareLogs(logs, ALL_LOGS) })).result;
    if (!('rows' in raw)) throw new Error(`unexpected ${JSON.stringify(raw)}`);
    const directRows = [...iterateLogQuery(parseLogQL(rawQuery), logs, { startNs: ALL_NS[0], endNs: ALL_NS[1], limit: 1000, direction: 'backward' })].flat();
    expect(directRows.length).toBeGreaterThan(10);
    const rows = unpackRows(raw.rows);
    expect(rows.map(withLine)).toEqual(directRows.map((r) => r.tags));
    expect(rows.map((r) => r.timestampNs)).toEqual(directRows.map((r) => r.timestampNs));
  });

  it('stops a raw task whose caller set its cancel flag, answering with what it has', () => {
    const rawQuery = '{service_name="checkout"}';
    const task = (cancel: SharedArrayBuffer) =>
      acrossThreads({ kind: 'logql-raw', query: rawQuery, startNs: ALL_NS[0], endNs: ALL_NS[1], limit: 1000, direction: 'backward', cancel, data: shareLogs(storage.logs('org-b'), ALL_LOGS) });
    const live = runTask(task(new SharedArrayBuffer(4))).result;
    if (!('rows' in live)) throw new Error(`unexpected ${JSON.stringify(live)}`);
    expect(unpackRows(live.rows).length).toBeGreaterThan(10);
    const flag = new SharedArrayBuffer(4);
    Atomics.store(new Int32Array(flag), 0, 1);
    const stopped = runTask(task(flag)).result;
    if (!('rows' in stopped)) throw new Error(`unexpected ${JSON.stringify(stopped)}`);
    expect(unpackRows(stopped.rows)).toEqual([]);
  });

  it('leaves messages out when the projection asks for no lines, and nothing else', () => {
    for (const view of [storage.logs('org-a'), logViewOf(logData('org-a'), new SharedSegmentReaders())]) {
      const full = view.select([], ...ALL_NS);
      const bare = view.select([], ...ALL_NS, { lines: false });
      expect(full.some((s) => s.messages.some((m) => m !== ''))).toBe(true);
      expect(bare).toEqual(full.map((s) => ({ ...s, messages: s.messages.map(() => '') })));
    }
  });

  it('reads the files a share will need ahead, off the thread, and still reports a missing one', async () => {
    const own = await tempDir();
    const first = await openStorage(own);
    await fill(first.storage, ORGS, 0, 2);
    await first.storage.cut();
    await fill(first.storage, ORGS, 2, 4);
    await first.storage.cut();
    await first.storage.close();
    // Reopened, the store has read no segment file yet.
    const reopened = await openStorage(own);
    try {
      const view = reopened.storage.metrics('org-a');
      const before = reopened.storage.stats().segmentFileReads;
      await view.prepare(EVERYTHING);
      const afterPrepare = reopened.storage.stats().segmentFileReads;
      expect(afterPrepare - before).toBe(2);
      expect(view.share(EVERYTHING).segments).toHaveLength(2);
      expect(reopened.storage.stats().segmentFileReads).toBe(afterPrepare);

      const logs = reopened.storage.logs('org-b');
      const [missing] = reopened.storage.segments().filter((m) => m.org === 'org-b' && m.signal === 'logs');
      await rm(path.join(own, 'segments', missing.file));
      await logs.prepare(ALL_LOGS);
      expect(logs.share(ALL_LOGS).segments).toHaveLength(1);
      expect(logs.failedSegments.map((f) => f.segmentId)).toEqual([missing.id]);
    } finally {
      await reopened.storage.close();
      await rm(own, { recursive: true, force: true });
    }
  });
});
