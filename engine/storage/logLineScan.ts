import type { Labels } from './labels.js';
import { lineReader, type LogStreamData } from './logHead.js';
import type { LineMatchOf } from './lineMatch.js';
import type { LabelMatcher } from './matchers.js';

/**
 * LineVisitor receives one line of a scan: the group `open` gave its tag set, the line, and
 * where its time is (`times[at]`, so no bigint is made for a caller that reads the time through
 * an OffsetReader over `times`).
 */
export type LineVisitor<G> = (group: G, line: string, times: BigInt64Array, at: number) => void;

/**
 * AsciiLine is a line held as ASCII bytes, bytes[start, end), where its store keeps it. One
 * object is refilled for every line of a scan: read it within the visit.
 */
export interface AsciiLine {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/** AsciiLineVisitor is LineVisitor for a line handed over as its ASCII bytes instead of its text. */
export type AsciiLineVisitor<G> = (group: G, line: AsciiLine, times: BigInt64Array, at: number) => void;

/** emptyAsciiLine is the line object a scan refills. */
export function emptyAsciiLine(): AsciiLine {
  return { bytes: new Uint8Array(0), start: 0, end: 0 };
}

/** asciiText is the string of an ASCII line. */
export function asciiText(line: AsciiLine): string {
  return Buffer.prototype.latin1Slice.call(line.bytes, line.start, line.end) as string;
}

/**
 * LogLineScanner hands over every matching line in the order its store keeps them, for callers
 * to which the order of lines across tag sets does not matter (a metric query's extraction adds
 * each line to its series, whatever comes between). A log segment keeps its rows in time order
 * across streams, so each stream's lines lie scattered over all of its message blocks: read
 * stream by stream, every line was a cache miss (about 200 ns a line), where rows in the
 * segment's order are read as the bytes lie.
 *
 * `open` is asked once per tag set and source (a tag set met in two segments is opened twice)
 * and returns the group its lines go to, or undefined to skip them. Lines of one tag set from
 * one source come in time order; sources come one after another. With `visitAscii`, a line the
 * store keeps as ASCII bytes goes there instead of to `visit`, its string never made. With
 * `lineMatchOf`, a group's lines that fail the literal filters it gives (its pipeline's opening
 * ones, which would drop them) are not visited at all: the store finds the rest by searching its
 * bytes (LineMatchCursor), as `grep -F` does.
 */
export interface LogLineScanner {
  scanLines<G>(
    matchers: readonly LabelMatcher[],
    minNs: bigint,
    maxNs: bigint,
    open: (tags: Labels) => G | undefined,
    visit: LineVisitor<G>,
    visitAscii?: AsciiLineVisitor<G>,
    lineMatchOf?: LineMatchOf<G>,
  ): void;
}

/** isLineScanner says whether a reader scans lines in its own order. */
export function isLineScanner(reader: object): reader is LogLineScanner {
  return typeof (reader as Partial<LogLineScanner>).scanLines === 'function';
}

/** scanStreams scans streams a select made: stream after stream, each in time order. */
export function scanStreams<G>(streams: readonly LogStreamData[], open: (tags: Labels) => G | undefined, visit: LineVisitor<G>): void {
  for (const stream of streams) {
    const group = open(stream.tags);
    if (group === undefined) continue;
    const lineAt = lineReader(stream);
    const times = stream.timestampsNs;
    for (let i = 0; i < times.length; i++) visit(group, lineAt(i), times, i);
  }
}
