import { describe, expect, it } from 'vitest';
import type { Labels, RawRow, SeriesColumns } from '../../engine/index.js';
import { chunkText, PIECE_BYTES, type FramedEvents } from '../../src/http/sse.js';
import { CompactRowEncoder, CompactSeriesEncoder } from '../../src/query/compactEvents.js';
import { SeriesRenderer } from '../../src/query/events.js';
import { RawRowRenderer } from '../../src/query/logsQuery.js';
import { expandCompact, splitDefault } from '../support/compactSse.js';
import { SeededRandom } from '../support/seededRandom.js';

/** text concatenates framed batches, checking each batch's count against its events. */
function text(batches: Iterable<FramedEvents>): { raw: string; sizes: number[] } {
  let raw = '';
  const sizes: number[] = [];
  for (const b of batches) {
    expect(chunkText(b.framed).split('\n\n').length - 1).toBe(b.count);
    raw += chunkText(b.framed);
    sizes.push(b.framed.length);
  }
  return { raw, sizes };
}

const AWKWARD_VALUES = [0, -0, 1, -1, 0.1, 1 / 3, 1e21, 1e-7, -1e-300, 5e-324, Number.MAX_VALUE, 2 ** 53 + 2, NaN, Infinity, -Infinity];

function series(random: () => number, count: number, points: number): SeriesColumns[] {
  return Array.from({ length: count }, (_, i) => {
    const n = 1 + Math.floor(random() * points);
    const timestampsMs = new Float64Array(n);
    const values = new Float64Array(n);
    const offset = Math.floor(random() * 5) * 15_000;
    for (let p = 0; p < n; p++) {
      timestampsMs[p] = 1_700_000_000_000 + offset + p * 15_000;
      values[p] = random() < 0.4 ? AWKWARD_VALUES[Math.floor(random() * AWKWARD_VALUES.length)] : (random() - 0.5) * 10 ** Math.floor(random() * 30 - 15);
    }
    const k = i % 40;
    const labels: Labels = { __name__: 'm', code: k % 3 === 0 ? '500' : '007', note: k % 2 === 0 ? 'q"uote\n☃' : 'plain', series: String(k) };
    return { labels, timestampsMs, values };
  });
}

describe('compact point encoding', () => {
  /**
   * acrossSlices encodes four slices of random series (fresh label objects each time, as
   * workers' answers bring) in the compact format and as default events, and returns both
   * expanded to default results with the number of distinct label sets among them.
   */
  function acrossSlices(seed: number, float64: boolean, count: number, points: number): { compact: ReturnType<typeof expandCompact>; reference: string[]; labelSets: number } {
    const rng = new SeededRandom(seed);
    const random = (): number => rng.next();
    const compact = new CompactSeriesEncoder(float64);
    const plain = new SeriesRenderer();
    let compactRaw = '';
    let plainRaw = '';
    for (let slice = 0; slice < 4; slice++) {
      const answer = series(random, count, points).map((s) => ({ ...s, labels: { ...s.labels } }));
      compactRaw += text(compact.frames(answer)).raw;
      plainRaw += text(plain.pointFrames(answer)).raw;
    }
    const reference = splitDefault(plainRaw).results;
    const labelSets = new Set(reference.map((r) => JSON.stringify((JSON.parse(r) as { data: { label: string } }).data.label))).size;
    return { compact: expandCompact(compactRaw), reference, labelSets };
  }

  it('carries exactly the default points across slices with fresh label objects, each series announced once', () => {
    const { compact, reference, labelSets } = acrossSlices(11, false, 60, 50);
    expect(compact.results.sort()).toEqual([...reference].sort());
    // Each label set with a finite point is announced once, however many slices it appears in.
    expect(labelSets).toBeGreaterThan(30);
    expect(compact.eventTypes.series).toBe(labelSets);
  });

  it('cuts a long series into several points events and the stream into pieces', () => {
    const n = 40_000;
    const timestampsMs = Float64Array.from({ length: n }, (_, p) => 1_700_000_000_000 + p * 1000);
    const values = Float64Array.from({ length: n }, (_, p) => p / 7);
    const long: SeriesColumns[] = [{ labels: { __name__: 'long' }, timestampsMs, values }];
    const { raw, sizes } = text(new CompactSeriesEncoder().frames(long));
    const expanded = expandCompact(raw);
    expect(expanded.eventTypes.series).toBe(1);
    expect(expanded.eventTypes.points).toBeGreaterThan(5);
    expect(expanded.results).toEqual(splitDefault(text(new SeriesRenderer().pointFrames(long)).raw).results);
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(PIECE_BYTES);
      expect(size).toBeLessThan(2 * PIECE_BYTES + 1024);
    }
  });

  it('carries exactly the default points as float64 columns too, for ranges and for one point a series, whatever the batch boundaries', () => {
    for (const [count, points] of [
      [60, 50],
      [3_000, 1],
    ]) {
      const { compact, reference, labelSets } = acrossSlices(12, true, count, points);
      expect(compact.results.sort()).toEqual([...reference].sort());
      expect(compact.eventTypes.series).toBe(labelSets);
    }
  });

  it('sends nothing for series without finite points, not even their series event', () => {
    const only: SeriesColumns[] = [{ labels: { a: '1' }, timestampsMs: new Float64Array([1, 2]), values: new Float64Array([NaN, -Infinity]) }];
    expect([...new CompactSeriesEncoder().frames(only)]).toEqual([]);
  });
});

describe('compact log row encoding', () => {
  it('carries exactly the default rows in order, each tag set announced once, cut into pieces', () => {
    const rng = new SeededRandom(5);
    const random = (): number => rng.next();
    const tagSets = (): Labels[] => [{ service_name: 'api', level: 'error' }, { aaa: 'x', zzz: 'quote " and \\' }, { ünïcode: '☃', message_id: '1', mess: '2' }, {}];
    const lines = ['plain', '', 'with "quotes" and \\ and \n newline', 'emoji 😀 \u2028 sep', undefined];
    const compact = new CompactRowEncoder();
    const plain = new RawRowRenderer();
    let compactRaw = '';
    let plainRaw = '';
    let sizes: number[] = [];
    for (let slice = 0; slice < 3; slice++) {
      // Each slice brings new tag objects, as worker answers do.
      const sets = tagSets();
      const rows: RawRow[] = Array.from({ length: 3000 }, (_, i) => ({
        timestampNs: 1_700_000_000_123_456_789n + BigInt(slice * 3000 + i) * 1_000_003n,
        tags: { ...sets[Math.floor(random() * sets.length)] },
        line: lines[Math.floor(random() * lines.length)],
      }));
      const c = text(compact.frames(rows));
      compactRaw += c.raw;
      sizes = sizes.concat(c.sizes.slice(0, -1));
      plainRaw += text(plain.events(rows)).raw;
    }
    const expanded = expandCompact(compactRaw);
    expect(expanded.results).toEqual(splitDefault(plainRaw).results);
    expect(expanded.eventTypes.stream).toBe(4);
    expect(expanded.eventTypes.rows).toBeGreaterThan(3);
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(PIECE_BYTES);
  });
});
