import zlib from 'node:zlib';
import { Bench } from 'tinybench';
import { packSeries, unpackSeries } from '../../engine/query/packing.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { utf8Bytes } from '../../src/http/compression.js';
import { CompactSeriesEncoder } from '../../src/query/compactEvents.js';
import { runWhenDirect } from '../runDirect.js';
import { manySeriesAnswer, POINTS, SERIES } from './manySeries.js';
import { taskMeanMs } from '../taskResult.js';

/**
 * The compact format's two ways of writing numbers, for a dashboard's heaviest answer: a rate
 * over 1,000 series at 241 steps. Each variant is timed over the whole server side of the
 * answer as the service runs it: the worker packs the series (with the values' text for JSON
 * columns, without for float64), the message is copied as a thread hand-over copies it, the
 * writing thread encodes the events and they are gzipped at the stream's level; then the
 * client's side, parsing every event and reading its columns back into numbers. Both variants
 * are checked to carry the same numbers first. `node dist/bench/query/compactColumns.bench.js`.
 */
function answer(): SeriesColumns[] {
  // Rates of counters growing by irrational shares: every digit of a double in use.
  return manySeriesAnswer(
    (i, p) => ((i + 1) * Math.PI * (p + 17)) / 300,
    (i) => ({ __name__: 'http_requests_total', instance: `host-${i}`, job: 'api' }),
  );
}

/** serve runs the server's side of one answer and returns its events' text. */
function serve(series: readonly SeriesColumns[], float64: boolean): string {
  const packed = structuredClone(packSeries(series, { valueText: !float64 }));
  const encoder = new CompactSeriesEncoder(float64);
  let text = '';
  for (const batch of encoder.frames(unpackSeries(packed))) text += batch.framed;
  return text;
}

/** read is the client's side: every points event parsed and its columns read as numbers. */
function read(text: string): number {
  let sum = 0;
  for (const block of text.split('\n\n')) {
    if (!block.startsWith('data: {"type":"points"')) continue;
    const { values } = (JSON.parse(block.slice(6)) as { data: { values: number[] | string } }).data;
    const column = typeof values === 'string' ? new Float64Array(new Uint8Array(Buffer.from(values, 'base64')).buffer) : values;
    for (let i = 0; i < column.length; i++) sum += column[i];
  }
  return sum;
}

export async function main(): Promise<void> {
  const series = answer();
  const json = serve(series, false);
  const float64 = serve(series, true);
  if (read(json) !== read(float64)) throw new Error('the two column formats carry different numbers');
  const gzip = (text: string): Buffer => zlib.gzipSync(utf8Bytes(text), { level: 1 });
  const bench = new Bench({ time: 2_000, warmup: true, warmupTime: 500 });
  bench.add('server: JSON columns', () => void gzip(serve(series, false)));
  bench.add('server: float64 columns', () => void gzip(serve(series, true)));
  bench.add('client: JSON columns', () => void read(json));
  bench.add('client: float64 columns', () => void read(float64));
  await bench.run();
  const ms = (name: string): number => taskMeanMs(bench, name);
  const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
  console.log(`\nA rate over ${SERIES.toLocaleString('en')} series at ${POINTS} steps in the compact format`);
  console.log(`  bytes: JSON columns ${mb(json.length)} (gzip ${mb(gzip(json).length)}), float64 ${mb(float64.length)} (gzip ${mb(gzip(float64).length)})`);
  const server = ms('server: float64 columns') / ms('server: JSON columns');
  const client = ms('client: float64 columns') / ms('client: JSON columns');
  console.log(`  server (pack, hand over, encode, gzip): JSON ${ms('server: JSON columns').toFixed(1)} ms, float64 ${ms('server: float64 columns').toFixed(1)} ms, ratio ${server.toFixed(2)}x`);
  console.log(`  client (parse, read numbers):          JSON ${ms('client: JSON columns').toFixed(1)} ms, float64 ${ms('client: float64 columns').toFixed(1)} ms, ratio ${client.toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
