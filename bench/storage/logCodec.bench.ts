/**
 * Log segment codec benchmark: bytes per line of format version 1 (plain message column) and
 * version 2 (deflated message blocks), and the cost of a count (no line read) and of a line
 * filter over one segment in both formats, warm (reader kept, as the worker cache does) and
 * cold (opened per run), all in one run so only ratios matter.
 *
 * Data: the peer benchmark's log lines (JSON lines with a random trace id).
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/logCodec.bench.js
 * Size: BENCH_LINES (default 500000).
 */
import { Bench } from 'tinybench';
import { LogHead } from '../../engine/storage/logHead.js';
import { LogSegmentReader, encodeLogSegment } from '../../engine/storage/logSegment.js';
import { compileMatchers } from '../../engine/storage/matchers.js';
import { Dataset } from '../peers/dataset.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMedianMs } from '../taskResult.js';

const LINES = Number(process.env.BENCH_LINES ?? 500_000);
const END_MS = Date.UTC(2024, 4, 2, 0, 0, 0) - 8_000;

/** main encodes the lines both ways, checks both answer alike, and times count and filter. */
export async function main(): Promise<void> {
  const dataset = new Dataset({ name: 'small', counterSeries: 0, histogramSeries: 0, hours: 6, logLines: LINES, windowsHours: [] }, END_MS);
  const head = new LogHead(new Set(['service_name']));
  let rawBytes = 0;
  const batch = [];
  for (const line of dataset.logs()) {
    rawBytes += Buffer.byteLength(line.line);
    batch.push({ timestampNs: line.timestampNs, message: line.line, level: line.stream.level, tags: { service_name: line.stream.service_name, env: line.stream.env } });
  }
  head.append(batch);
  const columns = head.columns();
  const v1 = encodeLogSegment(columns, ['service_name'], 1)!;
  const v2 = encodeLogSegment(columns, ['service_name'], 2)!;
  console.log(`${LINES} lines, ${(rawBytes / LINES).toFixed(1)} B/line of message text`);
  console.log(`  segment file, version 1   ${(v1.bytes.length / LINES).toFixed(2).padStart(7)} B/line`);
  console.log(`  segment file, version 2   ${(v2.bytes.length / LINES).toFixed(2).padStart(7)} B/line   (${(v1.bytes.length / v2.bytes.length).toFixed(1)}x smaller)`);

  const all = compileMatchers([]);
  const [minNs, maxNs] = [-(2n ** 63n), 2n ** 63n - 1n];
  const count = (reader: LogSegmentReader): number => reader.select(all, minNs, maxNs, { lines: false }).reduce((n, s) => n + s.timestampsNs.length, 0);
  const filter = (reader: LogSegmentReader): number => {
    let n = 0;
    for (const s of reader.select(all, minNs, maxNs)) for (const m of s.messages) if (m.includes('upstream timeout')) n++;
    return n;
  };
  const warm1 = LogSegmentReader.decode(v1.bytes);
  const warm2 = LogSegmentReader.decode(v2.bytes);
  if (count(warm1) !== count(warm2) || filter(warm1) !== filter(warm2)) throw new Error('formats answer differently');
  const open1 = (): LogSegmentReader => LogSegmentReader.decode(v1.bytes, undefined, 'trusted');
  const open2 = (): LogSegmentReader => LogSegmentReader.decode(v2.bytes, undefined, 'trusted');
  const bench = new Bench({ time: 0, iterations: 5, warmup: true, warmupIterations: 1, warmupTime: 0 });
  bench
    .add('count | v1 warm', () => void count(warm1))
    .add('count | v2 warm', () => void count(warm2))
    .add('count | v1 cold', () => void count(open1()))
    .add('count | v2 cold', () => void count(open2()))
    .add('line filter | v1 warm', () => void filter(warm1))
    .add('line filter | v2 warm', () => void filter(warm2))
    .add('line filter | v1 cold', () => void filter(open1()))
    .add('line filter | v2 cold', () => void filter(open2()));
  await bench.run();
  console.log('\nOne segment, whole span (median ms; ratio version 2 / version 1)');
  console.log(`  ${'query'.padEnd(14)}${['v1 warm', 'v2 warm', 'v2/v1 warm', 'v1 cold', 'v2 cold', 'v2/v1 cold'].map((h) => h.padStart(12)).join('')}`);
  for (const q of ['count', 'line filter']) {
    const [w1, w2, c1, c2] = ['v1 warm', 'v2 warm', 'v1 cold', 'v2 cold'].map((v) => taskMedianMs(bench, `${q} | ${v}`));
    console.log(`  ${q.padEnd(14)}${[w1.toFixed(1), w2.toFixed(1), `${(w2 / w1).toFixed(2)}x`, c1.toFixed(1), c2.toFixed(1), `${(c2 / c1).toFixed(2)}x`].map((c) => c.padStart(12)).join('')}`);
  }
}

runWhenDirect(import.meta.url, main);
