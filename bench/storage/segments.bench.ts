/**
 * Segment storage benchmark: ingests hours of the deterministic demo world (remote write and
 * OTLP logs, decoded by Sluice's own decoders) through Storage, cutting every half hour of
 * data, then compacts and prints bytes on disk per sample and per log line, and compares
 * select throughput from segments (cached, and cold: file read and decode per call) with the
 * same data in the head.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/segments.bench.js
 */
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { decodeOtlpLogs, decodeRemoteWrite, encodeExportLogsServiceRequest, encodeRemoteWriteBody } from '../../engine/ingest/index.js';
import { LocalBlobStore } from '../../engine/storage/blobStore.js';
import type { LogEntry } from '../../engine/storage/logHead.js';
import { LogSegmentReader } from '../../engine/storage/logSegment.js';
import { compileMatchers, type LabelMatcher } from '../../engine/storage/matchers.js';
import type { MetricSeries } from '../../engine/storage/metricHead.js';
import { MetricSegmentReader } from '../../engine/storage/metricSegment.js';
import { Storage } from '../../engine/storage/storage.js';
import { Generator, SCRAPE_INTERVAL_MS } from '../../src/gen/generator.js';
import { runWhenDirect } from '../runDirect.js';
import { taskHz } from '../taskResult.js';

const HOURS = 6;
const CUT_EVERY_MS = 30 * 60_000;
const START_MS = Date.UTC(2024, 4, 1, 0, 0, 0);
const ORG = 'bench-org';
const LOGS_PER_SECOND = 40;

interface Scrape {
  timeMs: number;
  metrics: MetricSeries[];
  logs: LogEntry[];
}

/** generate decodes the demo world's wire payloads into the records the ingest routes store. */
function generate(): { scrapes: Scrape[]; samples: number; lines: number } {
  const gen = new Generator({ seed: 42, logsPerSecond: LOGS_PER_SECOND });
  const scrapes: Scrape[] = [];
  let samples = 0;
  let lines = 0;
  const endMs = START_MS + HOURS * 3_600_000;
  for (let t = START_MS; t < endMs; t += SCRAPE_INTERVAL_MS) {
    const batch = gen.scrape(t);
    const opts = { nowMs: t + 60_000 };
    const metrics = decodeRemoteWrite(encodeRemoteWriteBody(batch.metrics), opts).records;
    const logs = batch.logLines > 0 ? decodeOtlpLogs(encodeExportLogsServiceRequest(batch.logs), 'application/x-protobuf', opts).records : [];
    for (const s of metrics) samples += s.timestampsMs.length;
    lines += logs.length;
    scrapes.push({ timeMs: t, metrics, logs });
  }
  return { scrapes, samples, lines };
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await fs.readdir(dir)) total += (await fs.stat(path.join(dir, name))).size;
  return total;
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(1);
}

const quiet = { maintenanceIntervalMs: 0, compactionIntervalMs: 0, headMaxBytes: Number.MAX_SAFE_INTEGER, retentionMs: 0 };

/** main ingests, cuts, compacts, reports sizes and times selects from head and segments. */
export async function main(): Promise<void> {
  console.log(`Generating ${HOURS} h of demo telemetry...`);
  const { scrapes, samples, lines } = generate();
  console.log(`  ${fmt(samples)} samples, ${fmt(lines)} log lines`);

  const headDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-head-'));
  const segDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-seg-'));
  try {
    const head = await Storage.open({ dir: headDir, ...quiet });
    const segments = await Storage.open({ dir: segDir, ...quiet });
    let nextCut = START_MS + CUT_EVERY_MS;
    let cuts = 0;
    const ingestStart = performance.now();
    for (const s of scrapes) {
      await segments.appendMetrics(ORG, s.metrics);
      if (s.logs.length > 0) await segments.appendLogs(ORG, s.logs);
      if (s.timeMs + SCRAPE_INTERVAL_MS >= nextCut) {
        await segments.cut();
        cuts++;
        nextCut += CUT_EVERY_MS;
      }
    }
    const ingestMs = performance.now() - ingestStart;
    for (const s of scrapes) {
      await head.appendMetrics(ORG, s.metrics);
      if (s.logs.length > 0) await head.appendLogs(ORG, s.logs);
    }
    const walBytes = await dirBytes(path.join(headDir, 'wal'));

    const bySignal = (st: Storage, signal: 'metrics' | 'logs') => st.segments().filter((x) => x.signal === signal).reduce((n, x) => n + x.bytes, 0);
    const beforeCompaction = { count: segments.segments().length, metrics: bySignal(segments, 'metrics'), logs: bySignal(segments, 'logs') };
    const compactStart = performance.now();
    await segments.compact();
    const compactMs = performance.now() - compactStart;
    const after = { count: segments.segments().length, metrics: bySignal(segments, 'metrics'), logs: bySignal(segments, 'logs') };
    const onDisk = await dirBytes(path.join(segDir, 'segments'));
    if (onDisk !== after.metrics + after.logs) throw new Error(`catalog says ${after.metrics + after.logs} bytes, disk holds ${onDisk}`);

    console.log(`\nIngest with ${cuts} cuts: ${fmt(samples / (ingestMs / 1000))} samples/s incl. logs and cuts; compaction of ${beforeCompaction.count} segments into ${after.count}: ${compactMs.toFixed(0)} ms`);
    console.log('\nBytes on disk');
    console.log(`  WAL (no cut)                 ${(walBytes / (samples + lines)).toFixed(1).padStart(7)} B per record (samples and lines together)`);
    console.log(`  metric segments, before comp ${(beforeCompaction.metrics / samples).toFixed(2).padStart(7)} B/sample`);
    console.log(`  metric segments, compacted   ${(after.metrics / samples).toFixed(2).padStart(7)} B/sample`);
    console.log(`  log segments, before comp    ${(beforeCompaction.logs / lines).toFixed(1).padStart(7)} B/line`);
    console.log(`  log segments, compacted      ${(after.logs / lines).toFixed(1).padStart(7)} B/line`);

    const all: [number, number] = [START_MS, START_MS + HOURS * 3_600_000];
    const allNs: [bigint, bigint] = [BigInt(all[0]) * 1_000_000n, BigInt(all[1]) * 1_000_000n];
    const buckets: LabelMatcher[] = [{ name: '__name__', type: '=', value: 'http_request_duration_seconds_bucket' }];
    const oneSeries: LabelMatcher[] = [
      { name: '__name__', type: '=', value: 'http_requests_total' },
      { name: 'service_name', type: '=', value: 'checkout' },
      { name: 'route', type: '=', value: '/api/cart' },
      { name: 'code', type: '=', value: '200' },
      { name: 'instance', type: '=', value: 'checkout-0' },
    ];
    const checkout: LabelMatcher[] = [{ name: 'service_name', type: '=', value: 'checkout' }];
    const lastHour: [number, number] = [all[1] - 3_600_000, all[1]];
    const count = (xs: Array<{ timestampsMs: Float64Array }>) => xs.reduce((n, x) => n + x.timestampsMs.length, 0);
    const countLines = (xs: Array<{ messages: string[] }>) => xs.reduce((n, x) => n + x.messages.length, 0);
    const bucketSamples = count(head.metrics(ORG).select(buckets, ...all));
    const checkoutLines = countLines(head.logs(ORG).select(checkout, ...allNs));
    // Sanity: both stores answer the same before anything is timed.
    if (count(segments.metrics(ORG).select(buckets, ...all)) !== bucketSamples) throw new Error('segment and head sample counts differ');
    if (countLines(segments.logs(ORG).select(checkout, ...allNs)) !== checkoutLines) throw new Error('segment and head line counts differ');

    const bench = new Bench({ time: 1500, warmupTime: 300 });
    for (const [where, st] of [['head', head], ['segments', segments]] as const) {
      bench
        .add(`${where}: histogram buckets, ${HOURS} h`, () => void st.metrics(ORG).select(buckets, ...all))
        .add(`${where}: one series, last hour`, () => void st.metrics(ORG).select(oneSeries, ...lastHour))
        .add(`${where}: label values of __name__`, () => void st.metrics(ORG).labelValues('__name__', [], ...all))
        .add(`${where}: logs of one service, ${HOURS} h`, () => void st.logs(ORG).select(checkout, ...allNs));
    }
    await bench.run();

    // Cold: read and decode the compacted segment file on every call, as a cache miss does.
    const blobs = new LocalBlobStore(path.join(segDir, 'segments'));
    const metricSegment = segments.segments().find((x) => x.signal === 'metrics')!;
    const logSegment = segments.segments().find((x) => x.signal === 'logs')!;
    const bucketMatchers = compileMatchers(buckets);
    const checkoutMatchers = compileMatchers(checkout);
    const cold = new Bench({ time: 1500, warmupTime: 300 });
    cold
      .add(`segments (cold): histogram buckets, ${HOURS} h`, () => {
        void MetricSegmentReader.decode(blobs.read(metricSegment.file), metricSegment.crc).select(buckets, bucketMatchers, ...all);
      })
      .add(`segments (cold): logs of one service, ${HOURS} h`, () => {
        void LogSegmentReader.decode(blobs.read(logSegment.file), logSegment.crc).select(checkoutMatchers, ...allNs);
      });
    await cold.run();

    console.log('\nSelect throughput');
    const rows: Array<[string, string]> = [
      ['histogram buckets, head', `${fmt(taskHz(bench, `head: histogram buckets, ${HOURS} h`) * bucketSamples)} samples/s`],
      ['histogram buckets, segments (views)', `${fmt(taskHz(bench, `segments: histogram buckets, ${HOURS} h`) * bucketSamples)} samples/s`],
      ['histogram buckets, segments (cold)', `${fmt(taskHz(cold, `segments (cold): histogram buckets, ${HOURS} h`) * bucketSamples)} samples/s`],
      ['one series last hour, head', `${fmt(taskHz(bench, 'head: one series, last hour'))} selects/s`],
      ['one series last hour, segments', `${fmt(taskHz(bench, 'segments: one series, last hour'))} selects/s`],
      ['label values, head', `${fmt(taskHz(bench, 'head: label values of __name__'))} calls/s`],
      ['label values, segments', `${fmt(taskHz(bench, 'segments: label values of __name__'))} calls/s`],
      ['logs of one service, head', `${fmt(taskHz(bench, `head: logs of one service, ${HOURS} h`) * checkoutLines)} lines/s`],
      ['logs of one service, segments', `${fmt(taskHz(bench, `segments: logs of one service, ${HOURS} h`) * checkoutLines)} lines/s`],
      ['logs of one service, segments (cold)', `${fmt(taskHz(cold, `segments (cold): logs of one service, ${HOURS} h`) * checkoutLines)} lines/s`],
    ];
    for (const [name, rate] of rows) console.log(`  ${name.padEnd(38)} ${rate.padStart(20)}`);
    console.log('');
    console.table([...bench.table(), ...cold.table()]);

    await head.close();
    await segments.close();
  } finally {
    await rm(headDir, { recursive: true, force: true });
    await rm(segDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
