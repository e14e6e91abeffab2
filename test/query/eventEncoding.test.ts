import { describe, expect, it } from 'vitest';
import { packSeries, sortSeriesByKey, unpackSeries, type KeyedSeries, type Labels, type RawRow, type SeriesColumns } from '../../engine/index.js';
import { legacyPointEvents, legacyRowEvent, legacyText } from '../../bench/query/legacyEvents.js';
import { chunkText, PIECE_BYTES, type FramedEvents } from '../../src/http/sse.js';
import { POINT_BLOCK_STEPS, PointEventWriter, SeriesRenderer, SharedRenders } from '../../src/query/events.js';
import { RawRowRenderer } from '../../src/query/logsQuery.js';
import { SeededRandom } from '../support/seededRandom.js';

/** joined concatenates framed batches and counts their events. */
function joined(batches: Iterable<FramedEvents>): { text: string; count: number; sizes: number[] } {
  let text = '';
  let count = 0;
  const sizes: number[] = [];
  for (const b of batches) {
    text += chunkText(b.framed);
    count += b.count;
    sizes.push(b.framed.length);
  }
  return { text, count, sizes };
}

const AWKWARD_VALUES = [0, -0, 1, -1, 0.1, 1 / 3, 1e21, 1e-7, -1e-300, 5e-324, Number.MAX_VALUE, 2 ** 53 + 2, 123456789.125, NaN, Infinity, -Infinity];

const AWKWARD_LABELS: Labels[] = [
  { __name__: 'up' },
  { __name__: 'http_requests_total', code: '500', method: 'GET', service_name: 'checkout' },
  { job: 'quote"and\\backslash', path: '/a\nb\tc', note: 'snow ☃ and 😀 emoji', ctrl: '\u0000\u0001\u001f\u2028' },
  { code: '007', id: '-0', big: '12345678901234567890', neg: '-42', exp: '1e3', plus: '+1' },
  { z: 'last', a: 'first', m: 'middle' },
  {},
  { 'weird key "q"': 'v', le: '+Inf' },
];

function makeSeries(random: () => number, count: number): SeriesColumns[] {
  return Array.from({ length: count }, (_, i) => {
    // Series of different lengths and offsets, so the time-major merge interleaves unevenly.
    const points = 1 + Math.floor(random() * 40);
    const start = Math.floor(random() * 10) * 15_000;
    const timestampsMs = new Float64Array(points);
    const values = new Float64Array(points);
    for (let p = 0; p < points; p++) {
      timestampsMs[p] = 1_700_000_000_000 + start + p * 15_000;
      values[p] = random() < 0.5 ? AWKWARD_VALUES[Math.floor(random() * AWKWARD_VALUES.length)] : (random() - 0.5) * 10 ** Math.floor(random() * 30 - 15);
    }
    // Each slice's answer brings fresh label objects, as packed worker results do.
    return { labels: { ...AWKWARD_LABELS[i % AWKWARD_LABELS.length], series: String(i) }, timestampsMs, values };
  });
}

describe('point event encoding', () => {
  it('is byte-identical to framing one event object per point, across slices with fresh label objects', () => {
    const rng = new SeededRandom(15);
    const random = (): number => rng.next();
    const renderer = new SeriesRenderer();
    for (let slice = 0; slice < 5; slice++) {
      const series = makeSeries(random, 60);
      // A grid that starts before the first point, so blocks do not start where the points do.
      const grid = { startMs: 1_700_000_000_000 - 7 * 15_000, stepMs: 15_000 };
      const fresh = joined(renderer.pointFrames(series, grid));
      const reference = [...legacyPointEvents(series, grid)];
      expect(fresh.count).toBe(reference.length);
      expect(fresh.text).toBe(legacyText(reference));
    }
  });

  it('renders each series once per query, whatever object its labels arrive in', () => {
    const renderer = new SeriesRenderer();
    const first = renderer.of({ __name__: 'up', job: 'a' });
    expect(renderer.of({ __name__: 'up', job: 'a' })).toBe(first);
    expect(renderer.of({ __name__: 'up', job: 'b' })).not.toBe(first);
  });

  it('cuts the text into batches of about a stream piece', () => {
    const rng = new SeededRandom(7);
    const random = (): number => rng.next();
    const series = makeSeries(random, 2000);
    const { sizes } = joined(new SeriesRenderer().pointFrames(series));
    expect(sizes.length).toBeGreaterThan(2);
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(PIECE_BYTES);
      expect(size).toBeLessThan(PIECE_BYTES + 1024);
    }
  });

  it('writes blocks of steps in time order, within a block series by series', () => {
    // Three series on one 15 s grid over 100 steps: blocks of 32, 32, 32 and 4 steps.
    const steps = 100;
    const series: SeriesColumns[] = ['a', 'b', 'c'].map((name) => ({
      labels: { __name__: 'requests_total', route: `/${name}` },
      timestampsMs: Float64Array.from({ length: steps }, (_, p) => 1_700_000_000_000 + p * 15_000),
      values: Float64Array.from({ length: steps }, (_, p) => p / 7),
    }));
    const events = joined(new SeriesRenderer().pointFrames(series))
      .text.split('\n\n')
      .filter((e) => e !== '')
      .map((e) => JSON.parse(e.slice('data: '.length)).data as { tags: { route: string }; timestamp: number });
    expect(events).toHaveLength(3 * steps);
    const order = events.map((e) => `${Math.floor((e.timestamp - 1_700_000_000_000) / 15_000 / POINT_BLOCK_STEPS)}${e.tags.route}`);
    const runs = order.filter((key, i) => i === 0 || key !== order[i - 1]);
    expect(runs).toEqual(['0/a', '0/b', '0/c', '1/a', '1/b', '1/c', '2/a', '2/b', '2/c', '3/a', '3/b', '3/c']);
    const timesOfA = events.filter((e) => e.tags.route === '/a').map((e) => e.timestamp);
    expect(timesOfA).toEqual([...series[0].timestampsMs]);
  });

  it('writes the same bytes however the answer is cut into pieces', () => {
    const rng = new SeededRandom(21);
    const random = (): number => rng.next();
    const grid = { startMs: 1_700_000_000_000, stepMs: 15_000 };
    for (let round = 0; round < 20; round++) {
      const whole = sortSeriesByKey(makeSeries(random, 30));
      const lastMs = Math.max(...whole.map((s) => s.timestampsMs[s.timestampsMs.length - 1]));
      // Cuts anywhere on the grid: inside blocks, on their edges, or pieces within one block.
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => grid.startMs + Math.floor(random() * 50) * grid.stepMs))].sort((a, b) => a - b);
      const bounds = [grid.startMs, ...cuts, lastMs + grid.stepMs];
      const writer = new PointEventWriter(grid);
      let text = '';
      for (let p = 0; p + 1 < bounds.length; p++) {
        const piece = whole
          .map((s) => {
            const keep = [...s.timestampsMs.keys()].filter((i) => s.timestampsMs[i] >= bounds[p] && s.timestampsMs[i] < bounds[p + 1]);
            return { labels: { ...s.labels }, timestampsMs: Float64Array.from(keep, (i) => s.timestampsMs[i]), values: Float64Array.from(keep, (i) => s.values[i]) };
          })
          .filter((s) => s.timestampsMs.length > 0);
        text += joined(writer.frames(piece)).text;
      }
      text += joined(writer.rest()).text;
      expect(text).toBe(joined(new SeriesRenderer().pointFrames(whole, grid)).text);
    }
  });

  it('yields nothing for series without finite points', () => {
    const series: SeriesColumns[] = [{ labels: { a: '1' }, timestampsMs: new Float64Array([1, 2]), values: new Float64Array([NaN, Infinity]) }];
    expect([...new SeriesRenderer().pointFrames(series)]).toEqual([]);
  });
});

describe('raw log event encoding', () => {
  it('is byte-identical to the hand-written row JSON framed as an event', () => {
    const rng = new SeededRandom(3);
    const random = (): number => rng.next();
    const tagSets: Labels[] = [
      { service_name: 'api', level: 'error' },
      { aaa: 'x', zzz: 'quote " and \\', message: 'a tag named message' },
      { 'ünïcode': '☃', message_id: '1', mess: '2' },
      {},
    ];
    const lines = ['plain', '', 'with "quotes" and \\ and \n newline', 'emoji 😀 \u2028 sep', undefined];
    const rows: RawRow[] = Array.from({ length: 500 }, (_, i) => ({
      timestampNs: 1_700_000_000_123_456_789n + BigInt(i) * 1_000_003n,
      tags: tagSets[Math.floor(random() * tagSets.length)],
      line: lines[Math.floor(random() * lines.length)],
    }));
    const fresh = joined(new RawRowRenderer().events(rows));
    expect(fresh.count).toBe(rows.length);
    expect(fresh.text).toBe(legacyText(rows.map(legacyRowEvent)));
  });
});

describe('rendered series kept across queries', () => {
  it('finds a worker’s series by its key, never reading its labels once it was rendered', () => {
    const series = (): KeyedSeries[] =>
      unpackSeries(packSeries(Array.from({ length: 50 }, (_, i) => ({ labels: { __name__: 'kept_total', shard: `s${i}` }, timestampsMs: Float64Array.of(1_700_000_000_000), values: Float64Array.of(i) }))));
    const first = joined(new SeriesRenderer().pointFrames(series()));
    const again = series();
    const second = joined(new SeriesRenderer().pointFrames(again));
    expect(second.text).toBe(first.text);
    expect(again.every((s) => s.labelsIfRead() === undefined)).toBe(true);
  });

  const labelsOf = (i: number): Labels => ({ __name__: 'requests_total', code: String(200 + i), instance: `i-${i}` });

  it('answers a series it keeps with the same rendering, and one it dropped rendered anew to the same text', () => {
    const renders = new SharedRenders(4_000);
    const first = renders.of(JSON.stringify(labelsOf(0)), { labels: labelsOf(0) });
    expect(renders.of(JSON.stringify(labelsOf(0)), { labels: labelsOf(0) })).toBe(first);
    for (let i = 1; i < 100; i++) renders.of(JSON.stringify(labelsOf(i)), { labels: labelsOf(i) });
    const again = renders.of(JSON.stringify(labelsOf(0)), { labels: labelsOf(0) });
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(first.head.toString()).toBe('data: {"type":"result","data":{"tags":{"__name__":"requests_total","code":200,"instance":"i-0"},"value":');
    expect(first.seriesTail).toBe(',"tags":{"__name__":"requests_total","code":200,"instance":"i-0"},"label":"requests_total{code=\\"200\\", instance=\\"i-0\\"}"}}\n\n');
  });

  it('gives a series used since the last pass a second chance before dropping it', () => {
    const renders = new SharedRenders(2_000);
    const kept = renders.of('kept', { labels: labelsOf(0) });
    // Each pass over the bound drops the oldest unused entries; `kept` is used between passes.
    for (let i = 1; i < 60; i++) {
      renders.of(`k${i}`, { labels: labelsOf(i) });
      expect(renders.of('kept', { labels: labelsOf(0) })).toBe(kept);
    }
    // Not used any more, it goes within one more pass.
    for (let i = 60; i < 120; i++) renders.of(`k${i}`, { labels: labelsOf(i) });
    expect(renders.of('kept', { labels: labelsOf(0) })).not.toBe(kept);
  });
});
