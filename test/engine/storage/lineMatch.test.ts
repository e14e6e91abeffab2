import { describe, expect, it } from 'vitest';
import { chunkRowsContaining, chunkText } from '../../../engine/storage/logChunk.js';
import { LogHead, type LogEntry } from '../../../engine/storage/logHead.js';
import { LineMatchCursor, alignedRange, literalLineMatch, markContaining, type LineMatch, type RowSearch } from '../../../engine/storage/lineMatch.js';
import { LogSegmentReader, encodeLogSegment } from '../../../engine/storage/logSegment.js';
import { SnapshotLogReader } from '../../../engine/query/snapshotLogReader.js';
import type { AsciiLine } from '../../../engine/storage/logLineScan.js';
import { SeededRandom } from '../../support/seededRandom.js';

/**
 * Literal line filters applied to stored bytes (lineMatch.ts) must pick exactly the rows a
 * per-line `includes` picks, in every store: segments of both formats, the head and the
 * head's snapshot chunks that workers read, including needles that would match only across
 * two consecutive lines' bytes.
 */

const WORDS = ['GET /api', 'timeout', 'tim', 'eout', 'error: disk full', 'état ☃ ok', 'a', 'b', 'ab', '', '😀', 'x'];

function entries(random: SeededRandom, n: number): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: random.int(0, 3) }, () => random.pick(WORDS));
    out.push({
      timestampNs: 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n,
      message: words.join(random.chance(0.5) ? ' ' : ''),
      level: random.pick(['info', 'error']),
      tags: { service_name: random.pick(['cart', 'search']) },
    });
  }
  return out;
}

const FILTERS: ReadonlyArray<ReadonlyArray<{ texts: readonly string[]; negate: boolean }>> = [
  [{ texts: ['timeout'], negate: false }],
  [{ texts: ['eout'], negate: false }],
  [{ texts: ['ab'], negate: false }],
  [{ texts: ['ba'], negate: false }],
  [{ texts: ['☃'], negate: false }],
  [{ texts: ['😀x'], negate: false }],
  [{ texts: ['timeout'], negate: true }],
  [
    { texts: ['a'], negate: false },
    { texts: ['b'], negate: true },
  ],
  [{ texts: [''], negate: false }],
  [{ texts: [''], negate: true }],
  [{ texts: ['never anywhere'], negate: false }],
  // Alternatives: `|= "a" or "b"` passes a line holding either, `!= "a" or "b"` one holding neither.
  [{ texts: ['timeout', '☃'], negate: false }],
  [{ texts: ['ab', 'never anywhere', 'x'], negate: false }],
  [{ texts: ['a', 'b'], negate: true }],
  [
    { texts: ['GET', 'error'], negate: false },
    { texts: ['disk', '/api'], negate: true },
  ],
  [{ texts: ['', 'x'], negate: false }],
  [{ texts: ['x', ''], negate: true }],
];

/** counts asks a store to count every line of the window with `lines`, one array per tag set. */
function counts(count: (open: (tags: Record<string, string>) => Float64Array, lines: LineMatch) => void, lines: LineMatch): Record<string, number> {
  const byTags = new Map<string, Float64Array>();
  count((tags) => {
    const key = JSON.stringify(tags);
    let diff = byTags.get(key);
    if (diff === undefined) byTags.set(key, (diff = new Float64Array(2)));
    return diff;
  }, lines);
  const out: Record<string, number> = {};
  for (const [key, diff] of byTags) if (diff[0] !== 0) out[key] = diff[0];
  return out;
}

/** expected counts what `includes` on every line passes, per tag set. */
function expected(all: readonly LogEntry[], head: LogHead, lines: LineMatch): Record<string, number> {
  const out: Record<string, number> = {};
  for (const stream of head.select([], -(2n ** 62n), 2n ** 62n)) {
    const n = stream.messages.filter((m) => lines.test(m)).length;
    if (n > 0) out[JSON.stringify(stream.tags)] = (out[JSON.stringify(stream.tags)] ?? 0) + n;
  }
  expect(Object.values(out).reduce((a, b) => a + b, 0)).toBe(all.filter((e) => lines.test(e.message)).length);
  return out;
}

describe('literal line filters on stored bytes', () => {
  // Enough lines for several of a version 2 segment's 64 KiB message blocks.
  const all = entries(new SeededRandom(21), 20_000);
  const head = new LogHead();
  head.append(all);
  const minNs = all[0].timestampNs;
  const maxNs = all[all.length - 1].timestampNs;
  const window = { baseNs: minNs - 1n, stepNs: Number(maxNs - minNs) + 10, rangeNs: Number(maxNs - minNs) + 10, steps: 1 };
  const columns = head.columns();
  const segments = ([1, 2] as const).map((version) => LogSegmentReader.decode(encodeLogSegment(columns, ['service_name'], version)!.bytes));
  const snapshot = new SnapshotLogReader(head.snapshot());

  it('agrees with a per-line test in every store, for every filter', () => {
    let nonEmpty = 0;
    for (const filters of FILTERS) {
      const lines = literalLineMatch(filters);
      const want = expected(all, head, lines);
      if (Object.keys(want).length > 0) nonEmpty++;
      const label = JSON.stringify(filters);
      expect(counts((open, l) => head.countLines([], minNs, maxNs, window, open, undefined, l), lines), `head ${label}`).toEqual(want);
      expect(counts((open, l) => snapshot.countLines([], minNs, maxNs, window, open, undefined, l), lines), `snapshot ${label}`).toEqual(want);
      segments.forEach((segment, v) => {
        expect(counts((open, l) => segment.countLines([], minNs, maxNs, window, open, undefined, l), lines), `segment v${v + 1} ${label}`).toEqual(want);
      });
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });

  it('leaves out of a scan the lines failing the filters of their group, and no other, in every store', () => {
    // cart's lines go through the filters, search's through none: a cursor serves one group, not its neighbours.
    const scanned = (scan: (open: (tags: Record<string, string>) => string, visit: (key: string, line: string) => void, lineMatchOf: (key: string) => LineMatch | undefined) => void, lines: LineMatch): Record<string, string[]> => {
      const out: Record<string, string[]> = {};
      scan(
        (tags) => JSON.stringify(tags),
        (key, line) => (out[key] ??= []).push(line),
        (key) => (key.includes('"cart"') ? lines : undefined),
      );
      return out;
    };
    for (const filters of FILTERS) {
      const lines = literalLineMatch(filters);
      const want: Record<string, string[]> = {};
      for (const e of all) {
        if (e.tags!.service_name === 'cart' && !lines.test(e.message)) continue;
        (want[JSON.stringify({ level: e.level, service_name: e.tags!.service_name })] ??= []).push(e.message);
      }
      const label = JSON.stringify(filters);
      const text = (line: AsciiLine): string => Buffer.from(line.bytes).toString('latin1', line.start, line.end);
      // Where most lines pass, a cursor may stop searching (and pass the rest); where few do, it leaves out exactly those that fail.
      const exact = all.filter((e) => lines.test(e.message)).length * 2 < all.length;
      const check = (got: Record<string, string[]>, where: string): void => {
        if (exact) {
          expect(got, where).toEqual(want);
          return;
        }
        const passing: Record<string, string[]> = {};
        for (const [key, visited] of Object.entries(got)) passing[key] = key.includes('"cart"') ? visited.filter((line) => lines.test(line)) : visited;
        expect(passing, where).toEqual(want);
      };
      // Every store visits a tag set's lines oldest first, as `want` lists them.
      for (const ascii of [false, true]) {
        segments.forEach((segment, v) => {
          const got = scanned((open, visit, lineMatchOf) => segment.scanLines([], minNs, maxNs, open, (key, line) => visit(key, line), ascii ? (key, line) => visit(key, text(line)) : undefined, lineMatchOf), lines);
          check(got, `segment v${v + 1} ascii ${ascii} ${label}`);
        });
        const got = scanned((open, visit, lineMatchOf) => snapshot.scanLines([], minNs, maxNs, open, (key, line) => visit(key, line), ascii ? (key, line) => visit(key, text(line)) : undefined, lineMatchOf), lines);
        check(got, `snapshot ascii ${ascii} ${label}`);
      }
    }
  });

  it('searches each range of a source once, and again once rows were added to it', () => {
    const lines = ['a timeout', 'ok', 'timeout b', 'ok'];
    let searches = 0;
    const source = {};
    const search: RowSearch = {
      source,
      rangeStart: (row) => alignedRange(row, lines.length, false),
      rangeEnd: (row) => alignedRange(row, lines.length, true),
      markContaining: (from, end, needle, hits) => {
        searches++;
        for (let row = from; row < end; row++) if (lines[row].includes(needle.toString())) hits[row - from] = 1;
      },
    };
    const cursor = new LineMatchCursor(literalLineMatch([{ texts: ['timeout'], negate: false }]));
    const passing = (rows: number[]): boolean[] => rows.map((row) => cursor.passesRow(row, search));
    expect(passing([0, 1, 2, 3])).toEqual([true, false, true, false]);
    // Another source's rows, then these again: kept, not searched again.
    const other: RowSearch = { ...search, source: {} };
    expect(cursor.passesRow(0, other)).toBe(true);
    expect(passing([1, 2])).toEqual([false, true]);
    expect(searches).toBe(2);
    // The source grew past what its kept marks cover: the row is searched for.
    lines.push('late timeout');
    expect(passing([4, 3])).toEqual([true, false]);
    expect(searches).toBe(3);
  });

  it('stops searching once most rows pass, and answers every row passes from then on', () => {
    // 20 ranges of 1,024 rows; `hit` tells which rows hold the text.
    const run = (hit: (row: number) => boolean): { searches: number; passed: number } => {
      let searches = 0;
      const rows = 20 * 1024;
      const search: RowSearch = {
        source: {},
        rangeStart: (row) => alignedRange(row, rows, false),
        rangeEnd: (row) => alignedRange(row, rows, true),
        markContaining: (from, end, _needle, hits) => {
          searches++;
          for (let row = from; row < end; row++) if (hit(row)) hits[row - from] = 1;
        },
      };
      const cursor = new LineMatchCursor(literalLineMatch([{ texts: ['x'], negate: false }]));
      let passed = 0;
      for (let row = 0; row < rows; row++) if (cursor.passesRow(row, search)) passed++;
      return { searches, passed };
    };
    // Nine rows in ten pass: after a trial of 4,096 rows (four ranges) nothing more is searched.
    const most = run((row) => row % 10 !== 0);
    expect(most.searches).toBe(4);
    expect(most.passed).toBe(4096 - Math.ceil(4096 / 10) + 16 * 1024);
    // One row in ten passes: every range is searched, every answer exact.
    const few = run((row) => row % 10 === 0);
    expect(few.searches).toBe(20);
    expect(few.passed).toBe(Math.ceil((20 * 1024) / 10));
  });

  it('never counts a match that runs across two lines', () => {
    // "tim" ending one line and "eout" starting the next read "timeout" across the boundary.
    const text = Buffer.from('xtimeoutytimeout', 'utf8');
    const ends = [1, 4, 8, 9, 12, 16];
    const hits = new Uint8Array(ends.length);
    markContaining({ text, ends, endsAt: 0, base: 0, count: ends.length }, Buffer.from('timeout'), hits, 0);
    // Rows: "x", "tim", "eout", "y", "tim", "eout": none holds the whole word.
    expect([...hits]).toEqual([0, 0, 0, 0, 0, 0]);
    const whole = new Uint8Array(2);
    markContaining({ text, ends: [1, 16], endsAt: 0, base: 0, count: 2 }, Buffer.from('timeout'), whole, 0);
    expect([...whole]).toEqual([0, 1]);
  });

  it('searches a chunk window that starts after its first row', () => {
    const chunk = head.snapshot().chunks[0];
    const text = chunkText(chunk);
    const from = 100;
    const end = Math.min(chunk.rows, 900);
    const hits = new Uint8Array(end - from);
    const needle = Buffer.from('timeout');
    chunkRowsContaining(chunk, text, from, end, needle, hits);
    for (let row = from; row < end; row++) {
      const line = text.toString('utf8', chunk.lineOffsets[row], chunk.lineOffsets[row + 1]);
      expect(hits[row - from], line).toBe(line.includes('timeout') ? 1 : 0);
    }
  });
});
