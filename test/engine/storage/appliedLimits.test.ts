import { describe, expect, it } from 'vitest';
import { limitAppliedEntry, scaledLimits } from '../../../engine/storage/appliedLimits.js';
import { OrgHeads } from '../../../engine/storage/orgHeads.js';
import type { AppliedRefusal } from '../../../engine/storage/storageOptions.js';
import type { HeadEntry } from '../../../engine/storage/orgHeads.js';

/** The limits an ingester checks on records it reads from the write log. */
describe('applied limits', () => {
  it('scales a limit to the share of partitions read, never below one, and leaves no limit alone', () => {
    expect(scaledLimits({ maxActiveSeries: 10, maxActiveStreams: 4 }, 8, 8)).toEqual({ maxActiveSeries: 10, maxActiveStreams: 4 });
    expect(scaledLimits({ maxActiveSeries: 10, maxActiveStreams: 4 }, 3, 8)).toEqual({ maxActiveSeries: 4, maxActiveStreams: 2 });
    expect(scaledLimits({ maxActiveSeries: 1, maxActiveStreams: 1 }, 1, 16)).toEqual({ maxActiveSeries: 1, maxActiveStreams: 1 });
    expect(scaledLimits({ maxActiveSeries: 0 }, 1, 4)).toEqual({ maxActiveSeries: 0, maxActiveStreams: undefined });
  });

  it('keeps known series and new ones up to the limit, and reports what it refused', () => {
    const heads = new OrgHeads(new Set(['service_name']), () => 0);
    const series = (n: number) => ({ labels: { __name__: 'm', n: String(n) }, timestampsMs: new Float64Array([1]), values: new Float64Array([n]) });
    const refusals: AppliedRefusal[] = [];
    const apply = (entry: HeadEntry) => heads.apply(limitAppliedEntry(entry, heads, { maxActiveSeries: 3, maxActiveStreams: 1 }, (r) => refusals.push(r)));

    apply({ kind: 'metrics', org: 'o', series: [series(0), series(1)], metadata: [] });
    expect(refusals).toEqual([]);
    // Series 0 is known, 2 is the third and last that fits; 3 and 4 are refused.
    apply({ kind: 'metrics', org: 'o', series: [series(0), series(2), series(3), series(4)], metadata: [] });
    expect(heads.org('o').active.metrics.seriesCount).toBe(3);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ signal: 'metrics', limit: 3, outcome: { refusedSeries: 2, refusedSamples: 2, firstRefused: { __name__: 'm', n: '3' } } });

    const line = (service: string) => ({ timestampNs: 1n, message: 'x', level: 'info', tags: { service_name: service } });
    apply({ kind: 'logs', org: 'o', records: [line('a'), line('b'), line('a')] });
    expect(heads.org('o').active.logs.streamCount).toBe(1);
    expect(refusals[1]).toMatchObject({ signal: 'logs', limit: 1, outcome: { refusedStreams: 1, refusedLines: 1 } });
    // Another org has limits of its own.
    apply({ kind: 'logs', org: 'p', records: [line('b')] });
    expect(heads.org('p').active.logs.streamCount).toBe(1);
    expect(refusals).toHaveLength(2);
  });
});
