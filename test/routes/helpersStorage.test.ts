import { describe, expect, it } from 'vitest';
import { LogHead, type LogEntry } from '../../engine/storage/logHead.js';
import { MetricHead } from '../../engine/storage/metricHead.js';
import type { Labels } from '../../engine/storage/labels.js';

const line = (ns: bigint, service: string, level: string, attrs: Record<string, string> = {}): LogEntry => ({
  timestampNs: ns,
  message: `line at ${ns}`,
  level,
  tags: { service_name: service, ...attrs },
});

function collectTagSets(head: LogHead, matchers: Parameters<LogHead['forEachTagSet']>[0], min: bigint, max: bigint): Labels[] {
  const out: Labels[] = [];
  head.forEachTagSet(matchers, min, max, (tags) => {
    out.push(tags);
  });
  return out;
}

describe('LogHead.forEachTagSet', () => {
  const head = new LogHead();
  head.append([
    line(10n, 'api', 'info', { user: 'u1' }),
    line(11n, 'api', 'info', { user: 'u1' }),
    line(12n, 'api', 'error', { user: 'u2' }),
    line(20n, 'worker', 'info'),
    line(30n, 'api', 'info', { user: 'u1' }),
    // A `level` attribute shadowed by the level column renders to the same tag set as line 10.
    line(40n, 'api', 'info', { user: 'u1', level: 'debug' }),
  ]);

  it('visits each distinct full tag set once, level and attributes included', () => {
    const sets = collectTagSets(head, [], 0n, 100n);
    expect(sets).toEqual([
      { level: 'info', service_name: 'api', user: 'u1' },
      { level: 'error', service_name: 'api', user: 'u2' },
      { level: 'info', service_name: 'worker' },
    ]);
  });

  it('honours the window bounds inclusively', () => {
    expect(collectTagSets(head, [], 12n, 20n)).toEqual([
      { level: 'error', service_name: 'api', user: 'u2' },
      { level: 'info', service_name: 'worker' },
    ]);
    expect(collectTagSets(head, [], 21n, 29n)).toEqual([]);
  });

  it('applies matchers on indexed tags, attributes and level', () => {
    expect(collectTagSets(head, [{ name: 'service_name', type: '=', value: 'worker' }], 0n, 100n)).toEqual([{ level: 'info', service_name: 'worker' }]);
    expect(collectTagSets(head, [{ name: 'user', type: '=~', value: 'u[0-9]' }, { name: 'level', type: '!=', value: 'info' }], 0n, 100n)).toEqual([
      { level: 'error', service_name: 'api', user: 'u2' },
    ]);
  });

  it('stops as soon as the visitor returns false', () => {
    let calls = 0;
    head.forEachTagSet([], 0n, 100n, () => {
      calls++;
      return calls < 2;
    });
    expect(calls).toBe(2);
  });
});

describe('MetricHead.forEachLabelSet', () => {
  const head = new MetricHead();
  const series = (labels: Record<string, string>, ts: number[]) =>
    head.append({ labels, timestampsMs: Float64Array.from(ts), values: Float64Array.from(ts, () => 1) });
  series({ __name__: 'up', job: 'api' }, [1000, 2000]);
  series({ __name__: 'up', job: 'node' }, [5000]);
  series({ __name__: 'load', job: 'node' }, [3000, 1500]); // out of order on purpose

  const names = (matchers: Parameters<MetricHead['forEachLabelSet']>[0], min: number, max: number): string[] => {
    const out: string[] = [];
    head.forEachLabelSet(matchers, min, max, (labels) => {
      out.push(`${labels.__name__}/${labels.job}`);
    });
    return out;
  };

  it('visits series with a sample in the window only', () => {
    expect(names([], 0, 10_000)).toEqual(['up/api', 'up/node', 'load/node']);
    expect(names([], 1600, 2500)).toEqual(['up/api']);
    expect(names([], 1500, 1500)).toEqual(['load/node']);
    expect(names([], 2001, 2999)).toEqual([]);
  });

  it('uses the name postings and other matchers', () => {
    expect(names([{ name: '__name__', type: '=', value: 'up' }], 0, 10_000)).toEqual(['up/api', 'up/node']);
    expect(names([{ name: 'job', type: '=', value: 'node' }], 0, 10_000)).toEqual(['up/node', 'load/node']);
  });

  it('hands out the stored label object and stops when told', () => {
    const seen: Labels[] = [];
    head.forEachLabelSet([], 0, 10_000, (labels) => {
      seen.push(labels);
      return false;
    });
    expect(seen).toHaveLength(1);
    expect(head.select([{ name: '__name__', type: '=', value: 'up' }, { name: 'job', type: '=', value: 'api' }], 0, 10_000)[0].labels).toBe(seen[0]);
  });
});
