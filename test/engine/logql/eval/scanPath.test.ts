import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateLogQLInstant, evaluateLogQLRange, evaluateLogQuery } from '../../../../engine/logql/eval/index.js';
import { parseLogQL } from '../../../../engine/logql/index.js';
import { gatherLogShare, logTimeParts, logViewOf, shareLogs } from '../../../../engine/query/taskData.js';
import type { Labels } from '../../../../engine/storage/labels.js';
import type { LogEntry, LogReader } from '../../../../engine/storage/logHead.js';
import type { AsciiLineVisitor, LineVisitor, LogLineScanner } from '../../../../engine/storage/logLineScan.js';
import type { LineMatchOf } from '../../../../engine/storage/lineMatch.js';
import type { LabelMatcher } from '../../../../engine/storage/matchers.js';
import type { OrgLogView } from '../../../../engine/storage/orgViews.js';
import type { TimePart } from '../../../../engine/storage/partition.js';
import { SharedSegmentReaders } from '../../../../engine/storage/sharedSegments.js';
import type { Storage } from '../../../../engine/storage/storage.js';
import type { SeriesColumns } from '../../../../engine/storage/seriesColumns.js';
import { SeededRandom } from '../../../support/seededRandom.js';
import { ALL_NS, openStorage, tempDir } from '../../storage/segmentFixtures.js';

/**
 * Metric queries whose pipeline reads lines take them in the order the store keeps them
 * (LogLineScanner: a segment's rows across streams, then the heads'), not stream by stream.
 * Their answers must be those of the stream-by-stream path, over two segments and a head whose
 * times overlap, for every kind of value (counts, bytes, unwrapped labels) and aggregation
 * (additive windows, and the kernels that keep each series' samples in time order).
 */

const ORG = 'org-scan';
const T0_MS = 1_700_000_000_000;
const NS_PER_MS = 1_000_000n;

/**
 * batch writes JSON and logfmt lines over [fromMs, toMs), some with equal timestamps, a few not
 * parseable; JSON lines now and then open with a nested object or an escaped string, or name a
 * stream label, and with `unicode` some hold non-ASCII text (so their stored blocks are not ASCII).
 */
function batch(random: SeededRandom, fromMs: number, toMs: number, lines: number, unicode = false): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = 0; i < lines; i++) {
    const service = random.pick(['checkout', 'cart', 'search']);
    const status = random.pick([200, 200, 201, 404, 500, 503]);
    const route = `/r${random.int(0, 3)}`;
    const duration = (random.next() * 900).toFixed(1);
    const message =
      random.chance(0.05)
        ? `not json ${i}`
        : random.chance(0.5)
          ? JSON.stringify({
              ...(random.chance(0.1) ? { req: { id: random.int(0, 9) } } : {}),
              ...(random.chance(0.1) ? { note: 'said "hi"' } : {}),
              ...(random.chance(0.1) ? { service_name: 'from-line' } : {}),
              ...(unicode && random.chance(0.3) ? { who: 'Zoë' } : {}),
              route,
              status,
              duration_ms: Number(duration),
              size: `${random.int(1, 9)}KB`,
              user: { id: random.int(0, 5) },
            })
          : `route=${route} status=${status} duration_ms=${duration} took=${random.int(1, 900)}ms`;
    const t = BigInt(fromMs + Math.floor(random.next() * (toMs - fromMs))) * NS_PER_MS;
    const timestampNs = random.chance(0.1) && out.length > 0 ? out[out.length - 1].timestampNs : t;
    out.push({ timestampNs, message, level: random.pick(['info', 'error', 'warn', '']), tags: { service_name: service, k8s_pod_name: `${service}-${random.int(0, 1)}` } });
  }
  return out;
}

/** streamByStream hides a reader's scan, so the evaluator takes each stream's lines from a select. */
function streamByStream(view: LogReader): LogReader {
  return { select: (matchers, minNs, maxNs, projection) => view.select(matchers, minNs, maxNs, projection) };
}

/** counting wraps a view and counts its reads: scans, selects, lines visited as bytes, and every line visited. */
function counting(view: OrgLogView): { reader: LogReader & LogLineScanner; calls: { select: number; scanLines: number }; asciiLines: { count: number }; visited: { count: number } } {
  const calls = { select: 0, scanLines: 0 };
  const asciiLines = { count: 0 };
  const visited = { count: 0 };
  const reader: LogReader & LogLineScanner = {
    select: (...args) => {
      calls.select++;
      return view.select(...args);
    },
    scanLines<G>(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, open: (tags: Labels) => G | undefined, visit: LineVisitor<G>, visitAscii?: AsciiLineVisitor<G>, lineMatchOf?: LineMatchOf<G>) {
      calls.scanLines++;
      const countedAscii: AsciiLineVisitor<G> | undefined =
        visitAscii &&
        ((group, line, times, at) => {
          asciiLines.count++;
          visited.count++;
          visitAscii(group, line, times, at);
        });
      const counted: LineVisitor<G> = (group, line, times, at) => {
        visited.count++;
        visit(group, line, times, at);
      };
      view.scanLines(matchers, minNs, maxNs, open, counted, countedAscii, lineMatchOf);
    },
  };
  return { reader, calls, asciiLines, visited };
}

const plain = (series: readonly SeriesColumns[]) => series.map((s) => ({ labels: JSON.stringify(s.labels), t: [...s.timestampsMs], v: [...s.values] }));

const QUERIES = [
  'sum by (route) (count_over_time({service_name=~".+"} | json | status >= 500 [2m]))',
  'count_over_time({service_name="cart"} | logfmt | status = 404 [90s])',
  'sum by (level) (rate({service_name=~".+"} |~ "r[12]" [1m]))',
  'bytes_over_time({service_name="search"} | json | __error__ = "" | line_format "{{.route}} {{.status}}" [1m])',
  'sum by (service_name) (bytes_rate({service_name=~".+"} != "status=200" [2m]))',
  'sum by (route) (sum_over_time({service_name=~".+"} | logfmt | __error__ = "" | unwrap duration_ms | __error__ = "" [2m]))',
  'quantile_over_time(0.9, {service_name=~".+"} | json | __error__ = "" | unwrap duration_ms [3m]) by (route)',
  'max_over_time({service_name="checkout"} | logfmt | unwrap duration(took) | __error__ = "" [2m]) by (k8s_pod_name)',
  'avg_over_time({service_name=~".+"} | json | __error__ = "" | unwrap bytes(size) [2m]) by (service_name)',
  // Which of two lines at the same time is first depends on the order lines come in: by a
  // stream's own labels, no other stream's line can tie with one of its own.
  'first_over_time({service_name=~".+"} | logfmt | unwrap duration_ms | __error__ = "" [1m]) by (service_name, k8s_pod_name, level)',
  'sum by (service_name, __error__) (count_over_time({service_name=~".+"} | json | __error__ != "" [2m]))',
  'sum(count_over_time({service_name="cart"} | line_format "{{__timestamp__}}" |= "17" [1m]))',
  // Read from stored ASCII bytes where the blocks allow (JsonParser.processAscii).
  'sum by (route, level) (rate({service_name=~".+"} | json | status != 404 [1m]))',
  'sum by (service_name_extracted) (count_over_time({service_name=~".+"} | json | route = "/r1" [2m]))',
  // Literal filters test the bytes before the parser does.
  'sum by (route) (count_over_time({service_name=~".+"} |= "status" != "\\"/r2\\"" | json | status >= 500 [2m]))',
  'max_over_time({service_name=~".+"} |= "duration_ms" | logfmt | unwrap duration_ms [2m]) by (route)',
];

/**
 * readsAscii tells whether a query's lines may be read from bytes: a json or logfmt parser
 * first, told which labels are read (a `by` grouping), and a sample that is not the line's size.
 */
const readsAscii = (q: string): boolean => /\}( [|!]= "[^"]*(\\"[^"]*)*")* \| (json|logfmt) \|/.test(q) && / by \(/.test(q) && !q.startsWith('bytes_');

describe('pipelines over lines in the order the store keeps them', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    const random = new SeededRandom(23);
    // Two segments and a head, each overlapping the next in time.
    await storage.appendLogs(ORG, batch(random, T0_MS, T0_MS + 10 * 60_000, 1200));
    await storage.cut();
    await storage.appendLogs(ORG, batch(random, T0_MS + 5 * 60_000, T0_MS + 15 * 60_000, 1200, true));
    await storage.cut();
    await storage.appendLogs(ORG, batch(random, T0_MS + 12 * 60_000, T0_MS + 20 * 60_000, 1200));
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  const workerView = (shard?: { timePart: TimePart }): OrgLogView => logViewOf(shareLogs(storage.logs(ORG), [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }]), new SharedSegmentReaders(), shard);

  it('hands over a segment rows across streams in time order, then the head stream by stream, every line once', () => {
    const view = storage.logs(ORG);
    const scanned: Array<{ key: string; t: bigint; line: string }> = [];
    view.scanLines(
      [],
      ...ALL_NS,
      (tags) => JSON.stringify(tags),
      (key, line, times, at) => scanned.push({ key, t: times[at], line }),
    );
    const selected = view.select([], ...ALL_NS).flatMap((s) => s.messages.map((line, i) => ({ key: JSON.stringify(s.tags), t: s.timestampsNs[i], line })));
    const order = (xs: typeof scanned) => xs.map((x) => `${x.key} ${x.t} ${x.line}`).sort();
    expect(scanned).toHaveLength(3600);
    expect(order(scanned)).toEqual(order(selected));
    // The first segment's rows come first, in time order whatever their stream.
    const first = scanned.slice(0, 1200).map((x) => x.t);
    expect(first).toEqual([...first].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(scanned.slice(0, 1200).map((x) => x.key)).size).toBeGreaterThan(3);
  });

  it('answers range and instant queries as the stream-by-stream path does, in the store and on a worker', () => {
    // A log shard's view holds the lines of its part of time only.
    const selections = [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }];
    const parts = logTimeParts(gatherLogShare(storage.logs(ORG), selections), selections, 2);
    const views = [storage.logs(ORG), workerView(), ...parts.map((timePart) => workerView({ timePart }))];
    for (const view of views) {
      for (const q of QUERIES) {
        const expr = parseLogQL(q);
        for (const [startMs, endMs, stepMs] of [
          [T0_MS, T0_MS + 21 * 60_000, 30_000],
          [T0_MS + 7_500, T0_MS + 20 * 60_000, 45_000],
        ]) {
          const { reader, calls, asciiLines } = counting(view);
          const scanned = evaluateLogQLRange(expr, reader, startMs, endMs, stepMs);
          const byStream = evaluateLogQLRange(expr, streamByStream(view), startMs, endMs, stepMs);
          expect(plain(scanned.series), `${q} ${startMs}`).toEqual(plain(byStream.series));
          expect(calls, q).toEqual({ select: 0, scanLines: 1 });
          // The first segment's blocks are ASCII: its lines went as bytes; the others' never do.
          if (readsAscii(q)) expect(asciiLines.count, q).toBeGreaterThan(100);
          else expect(asciiLines.count, q).toBe(0);
        }
        const at = T0_MS + 11 * 60_000;
        expect(plain((evaluateLogQLInstant(expr, view, at) as { series: SeriesColumns[] }).series), q).toEqual(plain((evaluateLogQLInstant(expr, streamByStream(view), at) as { series: SeriesColumns[] }).series));
      }
    }
    // The queries find lines: not every answer is empty.
    expect(evaluateLogQLRange(parseLogQL(QUERIES[0]), storage.logs(ORG), T0_MS, T0_MS + 21 * 60_000, 30_000).series.length).toBeGreaterThan(2);
  });

  it('answers raw log queries with the same rows in the same order, ties included, both ways and with limits', () => {
    const startNs = BigInt(T0_MS) * NS_PER_MS;
    const endNs = BigInt(T0_MS + 21 * 60_000) * NS_PER_MS;
    const rows = (reader: LogReader, q: string, direction: 'forward' | 'backward', limit: number, sliceNs?: bigint) =>
      evaluateLogQuery(parseLogQL(q), reader, { startNs, endNs, direction, limit, sliceNs }).map((r) => `${r.timestampNs} ${JSON.stringify(r.tags)}`);
    const view = workerView();
    for (const q of ['{service_name=~".+"}', '{service_name=~".+"} | json | status >= 500', '{service_name="cart"} |~ "r[12]" | logfmt']) {
      for (const direction of ['forward', 'backward'] as const) {
        for (const [limit, sliceNs] of [[0, undefined], [100, undefined], [37, 120_000n * NS_PER_MS]] as const) {
          const scanned = rows(view, q, direction, limit, sliceNs);
          expect(scanned, `${q} ${direction} ${limit}`).toEqual(rows(streamByStream(view), q, direction, limit, sliceNs));
          if (limit > 0) expect(scanned).toHaveLength(limit);
        }
      }
    }
  });

  it('answers raw queries that open with a parser and label filters as the whole pipeline does', () => {
    const startNs = BigInt(T0_MS) * NS_PER_MS;
    const endNs = BigInt(T0_MS + 21 * 60_000) * NS_PER_MS;
    const rows = (reader: LogReader, q: string) => evaluateLogQuery(parseLogQL(q), reader, { startNs, endNs, direction: 'forward', limit: 0 }).map((r) => `${r.timestampNs} ${JSON.stringify(r.tags)}`);
    const found = new Map<string, number>();
    for (const filters of [
      '| json | route="/r1"',
      '| json | note="said \\"hi\\"" | line_format "{{.route}}"',
      '| json | service_name="cart" | status >= 500',
      '| json | service_name_extracted="from-line"',
      '| json | user_id="3" and status="503"',
      '|= "status" | logfmt | route="/r2" or took > 800',
      '| logfmt | status="404" | route!="/r0"',
    ]) {
      const q = `{service_name=~".+"} ${filters}`;
      // The same pipeline behind a stage the prefilter does not open with (dropping a label no
      // line has), so every line goes through the whole pipeline: the answer to compare with.
      const whole = `{service_name=~".+"} | drop no_such_label ${filters}`;
      for (const view of [storage.logs(ORG), workerView()]) {
        const { reader, asciiLines } = counting(view);
        const answer = rows(reader, q);
        expect(answer, q).toEqual(rows(view, whole));
        expect(rows(streamByStream(view), q), q).toEqual(answer);
        // The first segment's blocks are ASCII: the prefilter read its lines as bytes (those the
        // line filters for the wanted texts left for it).
        expect(asciiLines.count, q).toBeGreaterThan(0);
        found.set(q, answer.length);
      }
    }
    // Every query finds lines, and none finds all.
    for (const [q, n] of found) expect(n, q).toBeGreaterThan(0);
    for (const [q, n] of found) expect(n, q).toBeLessThan(3600);
  });

  it('answers metric queries whose label filters want a text as without the line filter for it', () => {
    for (const q of [
      'sum by (route) (count_over_time({service_name=~".+"} | json | route="/r1" [2m]))',
      'sum by (level) (count_over_time({service_name=~".+"} | json | note="said \\"hi\\"" [2m]))',
      'sum(count_over_time({service_name=~".+"} | json | service_name="cart" | status="503" [2m]))',
      'sum by (level) (rate({service_name=~".+"} | logfmt | route="/r2" and status="500" [1m]))',
      'max_over_time({service_name=~".+"} | json | user_id="3" | unwrap duration_ms [2m]) by (route)',
    ]) {
      // As in the raw test: behind a `drop` of a label no line has, no line filter is added.
      const whole = q.replace('} | ', '} | drop no_such_label | ');
      for (const view of [storage.logs(ORG), workerView()]) {
        const answer = plain(evaluateLogQLRange(parseLogQL(q), view, T0_MS, T0_MS + 21 * 60_000, 30_000).series);
        expect(answer, q).toEqual(plain(evaluateLogQLRange(parseLogQL(whole), view, T0_MS, T0_MS + 21 * 60_000, 30_000).series));
        expect(answer.length, q).toBeGreaterThan(0);
      }
    }
  });

  it('leaves lines that fail the opening literal filters unread, with the answers of the whole pipeline', () => {
    const startNs = BigInt(T0_MS) * NS_PER_MS;
    const endNs = BigInt(T0_MS + 21 * 60_000) * NS_PER_MS;
    // Behind a `drop` of a label no line has, the filters no longer open the pipeline: every line
    // is read. (The matcher keeps a `!=` after it from reading as the drop's own `name!="text"`.)
    const whole = (q: string): string => q.replace('} ', '} | drop no_such_label="never" ');
    const raw = [
      '{service_name=~".+"} |= "status" or "took" != "/r2"',
      '{service_name=~".+"} |= "503" | logfmt',
      '{service_name=~".+"} != "not json" != "status=200" or "\\"status\\":200"',
      // A regular expression of one fixed string, anchored: the lines holding it are read.
      '{service_name=~".+"} |~ "^route=/r1"',
      // One it cannot search for is passed over; the filter after it still spares lines.
      '{service_name=~".+"} |~ "status=50[03]" |= "took=1"',
      // The text a label filter wants: `|= "/r1" or "\\"` in front, in streams without a route label.
      '{service_name=~".+"} | json | route="/r1"',
    ];
    for (const view of [storage.logs(ORG), workerView()]) {
      for (const q of raw) {
        for (const direction of ['forward', 'backward'] as const) {
          for (const [limit, sliceNs] of [[0, undefined], [50, 90_000n * NS_PER_MS]] as const) {
            const read = (reader: LogReader, query: string) => evaluateLogQuery(parseLogQL(query), reader, { startNs, endNs, direction, limit, sliceNs }).map((r) => `${r.timestampNs} ${JSON.stringify(r.tags)}`);
            const filtered = counting(view);
            const everyLine = counting(view);
            const answer = read(filtered.reader, q);
            expect(answer, `${q} ${direction} ${limit}`).toEqual(read(everyLine.reader, whole(q)));
            expect(answer.length, q).toBeGreaterThan(0);
            if (limit === 0) expect(filtered.visited.count, q).toBeLessThan(everyLine.visited.count * 0.9);
          }
        }
      }
      for (const q of [
        'sum by (route) (count_over_time({service_name=~".+"} |= "503" or "404" | json | __error__="" [2m]))',
        'sum by (level) (bytes_over_time({service_name=~".+"} != "not json" != "/r1" or "/r3" [1m]))',
        'max_over_time({service_name=~".+"} |= "duration_ms" != "\\"/r0\\"" | logfmt | unwrap duration_ms | __error__="" [2m]) by (route)',
      ]) {
        const filtered = counting(view);
        const everyLine = counting(view);
        const answer = plain(evaluateLogQLRange(parseLogQL(q), filtered.reader, T0_MS, T0_MS + 21 * 60_000, 30_000).series);
        expect(answer, q).toEqual(plain(evaluateLogQLRange(parseLogQL(whole(q)), everyLine.reader, T0_MS, T0_MS + 21 * 60_000, 30_000).series));
        expect(answer.length, q).toBeGreaterThan(0);
        expect(filtered.visited.count, q).toBeLessThan(everyLine.visited.count * 0.9);
      }
    }
  });
});
