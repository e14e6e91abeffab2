import { Bench } from 'tinybench';
import { packSeries, unpackSeries, type RawRow, type SeriesColumns } from '../../engine/index.js';
import { frame, PIECE_BYTES, type FramedEvents, type SseEvent } from '../../src/http/sse.js';
import { CompactRowEncoder, CompactSeriesEncoder } from '../../src/query/compactEvents.js';
import { SeriesRenderer } from '../../src/query/events.js';
import { RawRowRenderer } from '../../src/query/logsQuery.js';
import { runWhenDirect } from '../runDirect.js';
import { manySeriesAnswer, POINTS, SERIES } from './manySeries.js';
import { legacyPointEvents, legacyRowEvent } from './legacyEvents.js';
import { taskMedianMs } from '../taskResult.js';

/**
 * The result-event encoder alone, on one thread: a 1,000-series, one-hour-at-15-s answer as
 * point events and 20,000 raw log rows, rendered into stream pieces and measured to bytes (as
 * the stream does before each write). The previous encoder (an event object per point, framed
 * with a JSON.stringify each) runs in the same process as the baseline, and each slice brings
 * fresh label objects, as worker answers do. The compact format (series once, points as
 * columns) is measured beside the default on the same answers: points (or rows) per second
 * and bytes. The point runs format each value here; one more run takes the answer as a worker
 * sends it for an event stream (the values' text made there), which is what the answering
 * thread does. `node dist/bench/query/encoder.bench.js`.
 */
const ROWS = 20_000;
/** INSTANT_SERIES is the instant answer's width: the large peer scale's rate of every counter. */
const INSTANT_SERIES = 10_000;
const INSTANT_LABELS = Array.from({ length: INSTANT_SERIES }, (_, i) => ({ code: String(200 + (i % 4) * 100), instance: `i-${String(i % 2_000).padStart(4, '0')}`, route: `/r${i % 5}`, shard: String(i) }));

/** INSTANT_PACKED is the instant answer as a worker packs it, with its values' text. */
const INSTANT_PACKED = packSeries(
  INSTANT_LABELS.map((labels, i) => ({ labels, timestampsMs: new Float64Array([1_700_000_000_000]), values: new Float64Array([i * 0.37]) })),
  { valueText: true },
);

/**
 * instantAnswer is one point of each of INSTANT_SERIES series, unpacked as the answering thread
 * receives a worker's answer: each call makes fresh key strings (copied out of a message),
 * which lookups must hash. Labels are read from the keys where an encoder needs them.
 */
function instantAnswer(): SeriesColumns[] {
  return unpackSeries({ ...INSTANT_PACKED, keys: INSTANT_PACKED.keys.map((key) => (' ' + key).slice(1)) });
}

function slice(): SeriesColumns[] {
  return manySeriesAnswer(
    (i, p) => (i % 7) * 0.37 + p / 13,
    (i) => ({ __name__: 'http_requests_total', code: String(200 + (i % 4) * 100), instance: `host-${i % 250}:9100`, job: 'api', route: `/v1/r${i % 5}` }),
  );
}

function rows(): RawRow[] {
  const tagSets = Array.from({ length: 50 }, (_, i) => ({ level: ['info', 'warn', 'error'][i % 3], pod: `pod-${i}`, service_name: `svc-${i % 8}` }));
  return Array.from({ length: ROWS }, (_, i) => ({
    timestampNs: 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n,
    tags: tagSets[i % tagSets.length],
    line: `GET /api/v1/items/${i} 200 ${i % 97} ms user="u${i % 31}"`,
  }));
}

/** consumeEvents cuts framed events into pieces as the stream did before, and counts the bytes. */
function consumeEvents(events: Iterable<SseEvent>): number {
  let piece = '';
  let bytes = 0;
  for (const e of events) {
    piece += frame(e);
    if (piece.length < PIECE_BYTES) continue;
    bytes += Buffer.byteLength(piece);
    piece = '';
  }
  return bytes + Buffer.byteLength(piece);
}

/** consumeFramed counts the bytes of batches already framed. */
function consumeFramed(batches: Iterable<FramedEvents>): number {
  let bytes = 0;
  for (const b of batches) bytes += Buffer.byteLength(b.framed);
  return bytes;
}

/** TEXT_PACKED is a slice as a worker sends it for an event stream: with its values' text (SeriesColumns.valueText). */
const TEXT_PACKED = packSeries(slice(), { valueText: true });

/**
 * workerSlice is TEXT_PACKED unpacked as the answering thread receives it, with fresh key
 * strings each time: the default encoder then copies each value's text instead of formatting it.
 */
function workerSlice(): SeriesColumns[] {
  return unpackSeries({ ...TEXT_PACKED, keys: TEXT_PACKED.keys.map((key) => (' ' + key).slice(1)) });
}

export async function main(): Promise<void> {
  const pointEvents = SERIES * POINTS;
  const logRows = rows();
  let sink = 0;
  const bench = new Bench({ time: 2_000, warmup: true, warmupTime: 300 });
  bench
    .add('points, previous encoder', () => {
      sink += consumeEvents(legacyPointEvents(slice()));
    })
    .add('points, new encoder', () => {
      sink += consumeFramed(new SeriesRenderer().pointFrames(slice()));
    })
    .add('points with the workers\' text, new encoder', () => {
      sink += consumeFramed(new SeriesRenderer().pointFrames(workerSlice()));
    })
    .add('instant points, previous encoder', () => {
      sink += consumeEvents(legacyPointEvents(instantAnswer()));
    })
    .add('instant points, new encoder', () => {
      sink += consumeFramed(new SeriesRenderer().pointFrames(instantAnswer()));
    })
    .add('log rows, previous encoder', () => {
      sink += consumeEvents(logRows.map(legacyRowEvent));
    })
    .add('log rows, new encoder', () => {
      sink += consumeFramed(new RawRowRenderer().events(logRows));
    })
    .add('points, compact encoder', () => {
      sink += consumeFramed(new CompactSeriesEncoder().frames(slice()));
    })
    .add('points, compact float64 encoder', () => {
      sink += consumeFramed(new CompactSeriesEncoder(true).frames(slice()));
    })
    .add('instant points, compact float64 encoder', () => {
      sink += consumeFramed(new CompactSeriesEncoder(true).frames(instantAnswer()));
    })
    .add('log rows, compact encoder', () => {
      sink += consumeFramed(new CompactRowEncoder().frames(logRows));
    });
  await bench.run();
  const rate = (name: string, events: number): number => {
    return events / (taskMedianMs(bench, name) / 1000);
  };
  const table = [
    ['points', pointEvents],
    ['instant points', INSTANT_SERIES],
    ['log rows', ROWS],
  ].map(([kind, events]) => {
    const before = rate(`${kind} , previous encoder`.replace(' ,', ','), events as number);
    const after = rate(`${kind}, new encoder`, events as number);
    return { events: kind, 'previous events/s': Math.round(before), 'new events/s': Math.round(after), 'new / previous': (after / before).toFixed(2) };
  });
  const bytes = {
    points: [consumeFramed(new SeriesRenderer().pointFrames(slice())), consumeFramed(new CompactSeriesEncoder().frames(slice()))],
    'log rows': [consumeFramed(new RawRowRenderer().events(logRows)), consumeFramed(new CompactRowEncoder().frames(logRows))],
  };
  const compactTable = Object.entries(bytes).map(([kind, [plain, compact]]) => {
    const events = kind === 'points' ? pointEvents : ROWS;
    const plainRate = rate(`${kind}, new encoder`, events);
    const compactRate = rate(`${kind}, compact encoder`, events);
    return {
      results: kind,
      'default bytes/result': (plain / events).toFixed(1),
      'compact bytes/result': (compact / events).toFixed(1),
      'compact / default bytes': (compact / plain).toFixed(3),
      'compact / default results/s': (compactRate / plainRate).toFixed(2),
    };
  });
  console.log(`${SERIES} series x ${POINTS} points and ${INSTANT_SERIES} series x 1 point (the point runs include building the answer's columns), ${ROWS} log rows; one thread (${sink > 0 ? 'bytes counted' : ''})`);
  console.table(table);
  console.log('compact format against the default (same answers, same run)');
  console.table(compactTable);
  const float64Table = [
    ['points', pointEvents, slice],
    ['instant points', INSTANT_SERIES, instantAnswer],
  ].map(([kind, events, answer]) => {
    const plainRate = rate(`${kind as string}, new encoder`, events as number);
    const float64Rate = rate(`${kind as string}, compact float64 encoder`, events as number);
    const float64Bytes = consumeFramed(new CompactSeriesEncoder(true).frames((answer as () => SeriesColumns[])()));
    return { results: kind, 'float64 bytes/result': (float64Bytes / (events as number)).toFixed(1), 'float64 results/s': Math.round(float64Rate), 'float64 / default results/s': (float64Rate / plainRate).toFixed(2) };
  });
  console.log('compact format with float64 columns (the web UI\'s) against the default');
  console.table(float64Table);
  const served = rate('points with the workers\' text, new encoder', pointEvents);
  console.log(
    `default point events as the answering thread writes them (values' text made by the workers, answer unpacked from their message): ${Math.round(served)} events/s, ${(served / rate('points, new encoder', pointEvents)).toFixed(2)}x the rate formatting the values here`,
  );
}

runWhenDirect(import.meta.url, main);
