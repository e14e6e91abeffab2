/**
 * Empty label values, with Loki's rules: a stream label with an empty value is no label at all
 * (indexed tags here), while structured metadata (a line's other tags) keeps `name=""` as a
 * value, so such lines form series of their own. A label filter still reads an empty value
 * and an absent label alike.
 */
import { describe, expect, it } from 'vitest';
import { decodeLokiPushJson } from '../../../../engine/ingest/lokiPush.js';
import { compileMatchers } from '../../../../engine/storage/matchers.js';
import { LogHead } from '../../../../engine/storage/logHead.js';
import { LogSegmentReader, encodeLogSegment } from '../../../../engine/storage/logSegment.js';
import { BASE_MS, instant, makeHead, range, vectorOf } from './helpers.js';

/** Lines of one stream: 3 with metadata name="alpha", 2 with name="", 4 without name. */
const head = makeHead([
  { tags: { app: 'm', name: 'alpha' }, line: 'x', atSec: 20, everySec: 10, count: 3 },
  { tags: { app: 'm', name: '' }, line: 'x', atSec: 25, everySec: 10, count: 2 },
  { tags: { app: 'm' }, line: 'x', atSec: 21, everySec: 10, count: 4 },
]);

const ALPHA = '{"app":"m","name":"alpha"}';
const EMPTY = '{"app":"m","name":""}';
const ABSENT = '{"app":"m"}';

/** series evaluates `query` at 60s into `{labels} → value`, for order-free comparison. */
function series(query: string): Record<string, number> {
  return Object.fromEntries(vectorOf(instant(head, query, 60)));
}

describe('structured metadata with an empty value', () => {
  it('forms its own series, apart from lines without the label', () => {
    expect(series('count_over_time({app="m"} [1m])')).toEqual({ [ABSENT]: 4, [EMPTY]: 2, [ALPHA]: 3 });
  });

  it('matches an empty-value filter together with lines lacking the label', () => {
    expect(series('count_over_time({app="m"} | name="" [1m])')).toEqual({ [ABSENT]: 4, [EMPTY]: 2 });
    expect(series('count_over_time({app="m"} | name=~".*" [1m])')).toEqual({ [ABSENT]: 4, [EMPTY]: 2, [ALPHA]: 3 });
    expect(series('count_over_time({app="m"} | name!="" [1m])')).toEqual({ [ALPHA]: 3 });
    expect(series('count_over_time({app="m"} | name=~".+" [1m])')).toEqual({ [ALPHA]: 3 });
  });

  it('keeps its series over a range', () => {
    const result = range(head, 'count_over_time({app="m"} | name="" [1m])', 40, 60, 20);
    const byLabels = Object.fromEntries(result.series.map((s) => [JSON.stringify(s.labels), [...s.values]]));
    expect(byLabels).toEqual({ [ABSENT]: [2, 4], [EMPTY]: [2, 2] });
  });

  it('is kept by a by() grouping and removed by drop, as a present label', () => {
    expect(series('sum by (name) (count_over_time({app="m"} [1m]))')).toEqual({ '{"name":""}': 2, '{"name":"alpha"}': 3, '{}': 4 });
    expect(series('count_over_time({app="m"} | drop name [1m])')).toEqual({ [ABSENT]: 9 });
    // A rename carries the empty value over, as for any present label.
    expect(series('count_over_time({app="m"} | label_format other=name | other="" [1m])')).toEqual({ [ABSENT]: 4, '{"app":"m","other":""}': 2 });
  });

  it('is not a number to a numeric filter, which marks the line with an error as Loki does', () => {
    expect(() => series('count_over_time({app="m"} | name > 1 [1m])')).toThrow(`pipeline error: 'LabelFilterErr' for series: '{__error__="LabelFilterErr"`);
    // Lines lacking the label are dropped instead; dropping the error keeps the others.
    expect(series('count_over_time({app="m"} | name > 1 | drop __error__, __error_details__ [1m])')).toEqual({ [EMPTY]: 2, [ALPHA]: 3 });
  });
});

describe('stream labels with an empty value', () => {
  it('are dropped, so their lines join the stream without the label', () => {
    const streams = makeHead([
      { tags: { app: '', host: 'h' }, line: 'x', atSec: 20 },
      { tags: { host: 'h' }, line: 'x', atSec: 30 },
    ]);
    expect(vectorOf(instant(streams, 'count_over_time({host="h"} [1m])', 60))).toEqual([['{"host":"h"}', 2]]);
  });
});

describe('the Loki push write path', () => {
  it('drops an empty stream label even when it is not indexed, and keeps empty metadata', () => {
    const ns = BigInt(BASE_MS) * 1_000_000n;
    const body = {
      streams: [
        { stream: { app: 'm', team: '' }, values: [[String(ns + 20_000_000_000n), 'a', { name: '' }]] },
        { stream: { app: 'm' }, values: [[String(ns + 30_000_000_000n), 'b']] },
      ],
    };
    const decoded = decodeLokiPushJson(new TextEncoder().encode(JSON.stringify(body)), { nowMs: BASE_MS + 60_000 });
    expect(decoded.rejected).toBe(0);
    const logs = new LogHead(new Set(['app']));
    logs.append(decoded.records);
    expect(Object.fromEntries(vectorOf(instant(logs, 'count_over_time({app="m"} [1m])', 60)))).toEqual({
      '{"app":"m","detected_level":"unknown","level":"unknown","name":""}': 1,
      '{"app":"m","detected_level":"unknown","level":"unknown"}': 1,
    });
  });
});

describe('storage of empty metadata values', () => {
  it('survives being cut into a segment', () => {
    const logs = new LogHead(new Set(['app']));
    const ns = BigInt(BASE_MS) * 1_000_000n;
    logs.append([
      { timestampNs: ns, message: 'a', level: '', tags: { app: 'm', name: '' } },
      { timestampNs: ns + 1n, message: 'b', level: '', tags: { app: 'm' } },
    ]);
    const encoded = encodeLogSegment(logs.columns(), ['app']);
    expect(encoded).toBeDefined();
    const reader = LogSegmentReader.decode(encoded!.bytes);
    const fromSegment = reader.select(compileMatchers([]), ns, ns + 1n).map((s) => [JSON.stringify(s.tags), s.messages]);
    expect(Object.fromEntries(fromSegment)).toEqual({ [EMPTY]: ['a'], [ABSENT]: ['b'] });
    const fromHead = logs.select([], ns, ns + 1n).map((s) => [JSON.stringify(s.tags), s.messages]);
    expect(Object.fromEntries(fromHead)).toEqual({ [EMPTY]: ['a'], [ABSENT]: ['b'] });
  });
});
