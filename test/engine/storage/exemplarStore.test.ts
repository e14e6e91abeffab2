import { describe, expect, it } from 'vitest';
import { ExemplarStore } from '../../../engine/storage/exemplarStore.js';

const series = (path: string) => ({ __name__: 'http_requests_total', path });
const ex = (trace: string, timestampMs: number, value = 1) => ({ labels: { trace_id: trace }, value, timestampMs });

describe('ExemplarStore', () => {
  it('keeps at most its capacity per org, overwriting the oldest of any series, and forgets emptied series', () => {
    const store = new ExemplarStore(3);
    expect(store.add('org', [{ seriesLabels: series('/a'), exemplars: [ex('a1', 1000), ex('a2', 2000)] }])).toBe(2);
    expect(store.add('org', [{ seriesLabels: series('/b'), exemplars: [ex('b1', 1500), ex('b2', 2500)] }])).toBe(2);
    expect(store.count('org')).toBe(3);
    const all = store.select('org', [[{ name: '__name__', type: '=', value: 'http_requests_total' }]], 0, 10_000);
    expect(all.map((s) => [s.seriesLabels.path, s.exemplars.map((e) => e.labels.trace_id)])).toEqual([
      ['/a', ['a2']],
      ['/b', ['b1', 'b2']],
    ]);
    store.add('org', [{ seriesLabels: series('/c'), exemplars: [ex('c1', 3000)] }]);
    // a2 was /a's last exemplar: the series is gone from the index too.
    expect(store.select('org', [[{ name: 'path', type: '=', value: '/a' }]], 0, 10_000)).toEqual([]);
  });

  it('ignores a resend of a series\' newest exemplar and refuses older ones; orgs stay apart', () => {
    const store = new ExemplarStore(10);
    store.add('one', [{ seriesLabels: series('/a'), exemplars: [ex('x', 2000)] }]);
    expect(store.add('one', [{ seriesLabels: series('/a'), exemplars: [ex('x', 2000), ex('old', 1000), ex('same-time', 2000)] }])).toBe(0);
    expect(store.add('one', [{ seriesLabels: series('/a'), exemplars: [ex('y', 3000)] }])).toBe(1);
    expect(store.select('two', [[]], 0, 10_000)).toEqual([]);
    expect(store.select('one', [[{ name: 'path', type: '=~', value: '/.*' }]], 2500, 10_000)[0].exemplars).toEqual([ex('y', 3000)]);
  });

  it('snapshots and restores oldest first, and keeps nothing with capacity 0', () => {
    const store = new ExemplarStore(10);
    store.add('org', [{ seriesLabels: series('/a'), exemplars: [ex('a1', 1000), ex('a2', 2000)] }]);
    const copy = new ExemplarStore(1);
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    expect(copy.select('org', [[]], 0, 10_000)).toEqual([{ seriesLabels: series('/a'), exemplars: [ex('a2', 2000)] }]);
    const off = new ExemplarStore(0);
    expect(off.add('org', [{ seriesLabels: series('/a'), exemplars: [ex('a1', 1000)] }])).toBe(0);
  });
});
