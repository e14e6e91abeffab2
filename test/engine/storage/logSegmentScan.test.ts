import { describe, expect, it } from 'vitest';
import { LogHead, type LogEntry } from '../../../engine/storage/logHead.js';
import { LogSegmentReader, encodeLogSegment } from '../../../engine/storage/logSegment.js';
import { SeededRandom } from '../../support/seededRandom.js';

/**
 * A segment's scan finds each row's (stream, level, attributes) group in a table of slots, or
 * in a map when the segment has more groups than the table holds. Either way every row of a
 * group must reach it, once: what `select` and `scanLines` hand over per tag set equals the
 * head's lines for it.
 */

/** entries spreads lines over `streams` streams, each with `pods` pods of its own (attribute sets), and two levels. */
function entries(random: SeededRandom, n: number, streams: number, pods: number): LogEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const stream = random.int(0, streams - 1);
    return {
      timestampNs: 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n,
      message: `line ${i}`,
      level: random.pick(['info', 'error']),
      tags: { service_name: `s${stream}`, pod: `p${stream * pods + random.int(0, pods - 1)}` },
    };
  });
}

/** byTags lists each tag set's lines in the order they came. */
function byTags(visit: (add: (tags: Record<string, string>, line: string) => void) => void): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  visit((tags, line) => (out[JSON.stringify(tags)] ??= []).push(line));
  return out;
}

describe('a log segment scan', () => {
  // Slots are streams x levels x attribute sets: 100 x 2 x 500 is past the table, 4 x 2 x 12 within it.
  for (const [name, streams, pods] of [
    ['through the map of groups', 100, 5],
    ['through the table of groups', 4, 3],
  ] as const) {
    it(`hands over every row of every group once, ${name}`, () => {
      const all = entries(new SeededRandom(31), 20_000, streams, pods);
      const head = new LogHead();
      head.append(all);
      const segment = LogSegmentReader.decode(encodeLogSegment(head.columns(), ['service_name'], 2)!.bytes);
      const minNs = all[0].timestampNs;
      const maxNs = all[all.length - 1].timestampNs;
      const want = byTags((add) => {
        for (const stream of head.select([], minNs, maxNs)) for (const line of stream.messages) add(stream.tags, line);
      });
      // Groups repeat: most tag sets have several lines.
      expect(Object.keys(want).length).toBeLessThan(all.length / 2);
      expect(
        byTags((add) => {
          for (const stream of segment.select([], minNs, maxNs)) for (let i = 0; i < stream.timestampsNs.length; i++) add(stream.tags, stream.messages[i]);
        }),
      ).toEqual(want);
      expect(byTags((add) => segment.scanLines([], minNs, maxNs, (tags) => tags, (tags, line) => add(tags, line)))).toEqual(want);
    });
  }
});
