import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bitsOf, isStale } from '../../../engine/storage/metricHead.js';
import { Storage } from '../../../engine/storage/storage.js';

const ALL = [-Infinity, Infinity] as const;
const s = (ms: number[]) => Float64Array.from(ms);

describe('storage', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-storage-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes acknowledged metrics queryable at once and after a restart', async () => {
    const st = await Storage.open({ dir });
    await st.appendMetrics(
      'org-a',
      [
        { labels: { __name__: 'http_requests_total', job: 'api', code: '200' }, timestampsMs: s([1000, 2000]), values: s([1, 2]) },
        { labels: { __name__: 'http_requests_total', job: 'api', code: '500' }, timestampsMs: s([1000]), values: s([7]) },
        { labels: { __name__: 'up', job: 'api' }, timestampsMs: s([1000]), values: s([1]) },
      ],
      [{ name: 'http_requests_total', type: 'counter', unit: '', help: 'Requests.' }],
    );
    const check = (storage: Storage) => {
      const got = storage.metrics('org-a').select([{ name: '__name__', type: '=', value: 'http_requests_total' }, { name: 'code', type: '=', value: '200' }], ...ALL);
      expect(got).toHaveLength(1);
      expect(got[0].labels).toEqual({ __name__: 'http_requests_total', code: '200', job: 'api' });
      expect([...got[0].timestampsMs]).toEqual([1000, 2000]);
      expect([...got[0].values]).toEqual([1, 2]);
      expect(storage.metricMetadata('org-a').get('http_requests_total')).toMatchObject({ type: 'counter' });
      expect(storage.metrics('org-a').labelValues('code', [], ...ALL)).toEqual(['200', '500']);
    };
    check(st);
    await st.close();
    const reopened = await Storage.open({ dir });
    check(reopened);
    await reopened.close();
  });

  it('under a series limit, appends to the series its labels name whatever their order, and replays them from the WAL', async () => {
    const st = await Storage.open({ dir });
    const limits = { maxActiveSeries: 2 };
    // Same series written with its labels in another order and an empty label: one series.
    const first = await st.appendMetrics('org-a', [{ labels: { __name__: 'm', b: '2', a: '1' }, timestampsMs: s([1000]), values: s([1]) }], [], limits);
    const again = await st.appendMetrics('org-a', [{ labels: { a: '1', e: '', __name__: 'm', b: '2' }, timestampsMs: s([2000]), values: s([2]) }], [], limits);
    const more = await st.appendMetrics(
      'org-a',
      [
        { labels: { __name__: 'm', a: '2' }, timestampsMs: s([1000]), values: s([3]) },
        { labels: { __name__: 'm', a: '3' }, timestampsMs: s([1000]), values: s([4]) },
      ],
      [],
      limits,
    );
    expect([first.refusedSeries, again.refusedSeries, more.refusedSeries]).toEqual([0, 0, 1]);
    const check = (storage: Storage) => {
      const got = storage.metrics('org-a').select([{ name: '__name__', type: '=', value: 'm' }], ...ALL);
      expect(got.map((g) => g.labels)).toEqual([{ __name__: 'm', a: '1', b: '2' }, { __name__: 'm', a: '2' }]);
      expect([...got[0].timestampsMs]).toEqual([1000, 2000]);
      expect([...got[0].values]).toEqual([1, 2]);
    };
    check(st);
    await st.close();
    const reopened = await Storage.open({ dir });
    check(reopened);
    await reopened.close();
  });

  it('keeps orgs apart even with identical series', async () => {
    const st = await Storage.open({ dir });
    const series = (v: number) => [{ labels: { __name__: 'm', a: '1' }, timestampsMs: s([1]), values: s([v]) }];
    await st.appendMetrics('org-a', series(1));
    await st.appendMetrics('org-b', series(2));
    await st.appendLogs('org-a', [{ timestampNs: 5n, message: 'secret of a', level: 'info', tags: { service_name: 'x' } }]);
    expect(st.metrics('org-a').select([], ...ALL).map((x) => x.values[0])).toEqual([1]);
    expect(st.metrics('org-b').select([], ...ALL).map((x) => x.values[0])).toEqual([2]);
    expect(st.logs('org-b').select([], -(2n ** 63n), 2n ** 63n - 1n)).toEqual([]);
    await st.close();
  });

  it('orders out-of-order samples and lets the last write of a timestamp win', async () => {
    const st = await Storage.open({ dir });
    const labels = { __name__: 'g' };
    await st.appendMetrics('o', [{ labels, timestampsMs: s([3000, 1000]), values: s([3, 1]) }]);
    await st.appendMetrics('o', [{ labels, timestampsMs: s([2000, 3000]), values: s([2, 33]) }]);
    await st.appendMetrics('o', [{ labels, timestampsMs: s([2000]), values: s([2]) }]);
    const [series] = st.metrics('o').select([], ...ALL);
    expect([...series.timestampsMs]).toEqual([1000, 2000, 3000]);
    expect([...series.values]).toEqual([1, 2, 33]);
    const [ranged] = st.metrics('o').select([], 1500, 2000);
    expect([...ranged.timestampsMs]).toEqual([2000]);
    await st.close();
  });

  it('keeps staleness markers bit-exact through the WAL', async () => {
    const st = await Storage.open({ dir });
    await st.appendMetrics('o', [{ labels: { __name__: 'up' }, timestampsMs: s([1, 2]), values: s([1, 0]), stale: Uint8Array.from([0, 1]) }]);
    await st.close();
    const reopened = await Storage.open({ dir });
    const [series] = reopened.metrics('o').select([], ...ALL);
    const bits = bitsOf(series.values);
    expect([isStale(bits, 0), isStale(bits, 1)]).toEqual([false, true]);
    await reopened.close();
  });

  it('returns log lines grouped by full tag set, oldest first, filtered by time and any tag', async () => {
    const st = await Storage.open({ dir });
    await st.appendLogs('o', [
      { timestampNs: 30n, message: 'third', level: 'error', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 10n, message: 'first', level: 'info', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 20n, message: 'second', level: 'info', tags: { service_name: 'api', user: 'bob' } },
      { timestampNs: 15n, message: 'other', level: 'info', tags: { service_name: 'web' } },
    ]);
    await st.close();
    const reopened = await Storage.open({ dir });
    const api = reopened.logs('o').select([{ name: 'service_name', type: '=', value: 'api' }, { name: 'user', type: '=', value: 'bob' }], 0n, 100n);
    const byLevel = Object.fromEntries(api.map((x) => [x.tags.level, x.messages]));
    expect(byLevel).toEqual({ info: ['first', 'second'], error: ['third'] });
    expect(api.find((x) => x.tags.level === 'info')!.tags).toEqual({ level: 'info', service_name: 'api', user: 'bob' });
    expect(reopened.logs('o').select([{ name: 'level', type: '!=', value: 'info' }], 0n, 100n).map((x) => x.messages)).toEqual([['third']]);
    expect(reopened.logs('o').select([], 11n, 20n).flatMap((x) => x.messages).sort()).toEqual(['other', 'second']);
    await reopened.close();
  });
});
