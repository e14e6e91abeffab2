/**
 * Native histograms in storage: bytes per histogram sample on disk, and histogram_quantile over
 * native histogram series against the same over classic `_bucket` series carrying the same
 * observations, both read through the real storage (WAL, head cut into segments, the segment
 * readers of an org view), all in one run so only ratios matter.
 *
 * Data: BENCH_SERIES latency histograms (default 200) over BENCH_HOURS (default 6) at 15 s,
 * counters that grow every scrape. Stored as
 *   exponential  integer native histograms, schema 3, 20-40 populated buckets each
 *   float        the same with counts scaled by 0.37 (float histograms)
 *   custom       custom-bucket (NHCB) integer histograms over 11 bounds
 *   classic      the custom ones as 12 `_bucket{le}` series plus `_sum` and `_count`
 * `classic` per histogram is the cost of all its series' samples at one timestamp.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/histogramSegment.bench.js
 * The issue's size: BENCH_SERIES=1000 BENCH_HOURS=24.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { CUSTOM_BUCKETS_SCHEMA, CounterResetHint, type FloatHistogram } from '../../engine/histogram/floatHistogram.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import type { MetricSeries } from '../../engine/storage/metricHead.js';
import { Storage } from '../../engine/storage/storage.js';
import { runWhenDirect } from '../runDirect.js';
import { taskHz } from '../taskResult.js';
import { seededRandom } from '../seededRandom.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 200);
const HOURS = Number(process.env.BENCH_HOURS ?? 6);
const SCRAPE_MS = 15_000;
const STEP_MS = 60_000;
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const START_MS = Date.UTC(2026, 0, 1);

function histogram(schema: number, index: number[], counts: number[], sum: number, customValues: Float64Array | null): FloatHistogram {
  const total = counts.reduce((a, b) => a + b, 0);
  return { schema, zeroThreshold: 2 ** -128, zeroCount: 0, count: total, sum, posIndex: Int32Array.from(index), posCount: Float64Array.from(counts), negIndex: new Int32Array(0), negCount: new Float64Array(0), customValues, counterResetHint: CounterResetHint.Unknown };
}

/** build makes every org's series; `random` is a fixed LCG so runs compare. */
function build(): Record<string, MetricSeries[]> {
  const points = (HOURS * 3600_000) / SCRAPE_MS;
  const ts = Float64Array.from({ length: points }, (_, i) => START_MS + i * SCRAPE_MS);
  const random = seededRandom(11);
  const out: Record<string, MetricSeries[]> = { exponential: [], float: [], custom: [], classic: [] };
  const customValues = Float64Array.from(BOUNDS);
  const customIndex = BOUNDS.map((_, k) => k).concat(BOUNDS.length);
  for (let s = 0; s < SERIES; s++) {
    const labels = (name: string, extra: Record<string, string> = {}) => ({ __name__: name, instance: `host-${s}`, job: 'api', ...extra });
    const width = 20 + Math.floor(random() * 20);
    const first = -10 + Math.floor(random() * 10);
    const expIndex = Array.from({ length: width }, (_, k) => first + k);
    const exp = new Array<number>(width).fill(0);
    const custom = new Array<number>(BOUNDS.length + 1).fill(0);
    let sum = 0;
    const expHists: FloatHistogram[] = [];
    const floatHists: FloatHistogram[] = [];
    const customHists: FloatHistogram[] = [];
    const classic = Array.from({ length: BOUNDS.length + 1 }, () => new Float64Array(points));
    const sums = new Float64Array(points);
    const counts = new Float64Array(points);
    for (let i = 0; i < points; i++) {
      for (let k = 0; k < width; k++) exp[k] += Math.floor(random() * (6 - Math.abs(k - width / 2) / 4));
      for (let k = 0; k < custom.length; k++) custom[k] += Math.floor(random() * (8 - Math.abs(k - 5)));
      sum += Math.round(random() * 4000) / 8;
      expHists.push(histogram(3, expIndex, exp.slice(), sum, null));
      floatHists.push(histogram(3, expIndex, exp.map((c) => c * 0.37), sum * 0.37, null));
      customHists.push(histogram(CUSTOM_BUCKETS_SCHEMA, customIndex, custom.slice(), sum, customValues));
      let cumulative = 0;
      for (let k = 0; k < custom.length; k++) classic[k][i] = cumulative += custom[k];
      sums[i] = sum;
      counts[i] = cumulative;
    }
    const zeros = new Float64Array(points);
    out.exponential.push({ labels: labels('lat'), timestampsMs: ts, values: zeros, histograms: expHists });
    out.float.push({ labels: labels('lat'), timestampsMs: ts, values: zeros, histograms: floatHists });
    out.custom.push({ labels: labels('lat'), timestampsMs: ts, values: zeros, histograms: customHists });
    classic.forEach((values, k) => out.classic.push({ labels: labels('lat_bucket', { le: k < BOUNDS.length ? String(BOUNDS[k]) : '+Inf' }), timestampsMs: ts, values }));
    out.classic.push({ labels: labels('lat_sum'), timestampsMs: ts, values: sums }, { labels: labels('lat_count'), timestampsMs: ts, values: counts });
  }
  return out;
}

export async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-histogram-bench-'));
  const storage = await Storage.open({ dir, maintenanceIntervalMs: 0, headMaxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const data = build();
    const histogramsPerOrg = SERIES * ((HOURS * 3600_000) / SCRAPE_MS);
    for (const [org, series] of Object.entries(data)) {
      // Writes go in batches of one hour, as a sender would send them.
      for (let from = 0; from < series[0].timestampsMs.length; from += 240) {
        const batch = series.map((s) => ({
          labels: s.labels,
          timestampsMs: s.timestampsMs.subarray(from, from + 240),
          values: s.values.subarray(from, from + 240),
          histograms: s.histograms?.slice(from, from + 240),
        }));
        await storage.appendMetrics(org, batch);
      }
    }
    await storage.cut();
    console.log(`${SERIES} series x ${HOURS} h at 15 s: ${histogramsPerOrg} histograms per form`);
    console.log('\nBytes on disk per histogram sample (segment file bytes / histogram samples)');
    const bytes: Record<string, number> = {};
    for (const org of Object.keys(data)) {
      bytes[org] = storage.segments().filter((s) => s.org === org).reduce((n, s) => n + s.bytes, 0);
      console.log(`  ${org.padEnd(12)} ${(bytes[org] / histogramsPerOrg).toFixed(2)} bytes`);
    }
    console.log(`  custom/classic = ${(bytes.custom / bytes.classic).toFixed(2)}x the bytes for the same observations`);

    const end = START_MS + HOURS * 3600_000 - SCRAPE_MS;
    const start = START_MS + 5 * 60_000;
    const pairs = [
      { name: 'quantile(rate)', native: 'histogram_quantile(0.9, rate(lat[5m]))', classic: 'histogram_quantile(0.9, rate(lat_bucket[5m]))' },
      { name: 'quantile(sum(rate))', native: 'histogram_quantile(0.9, sum(rate(lat[5m])))', classic: 'histogram_quantile(0.9, sum by (le) (rate(lat_bucket[5m])))' },
    ];
    const native = storage.metrics('custom');
    const classic = storage.metrics('classic');
    for (const p of pairs) {
      const a = evaluateRange(parseAndCheckPromQL(p.native), native, end - 3600_000, end, STEP_MS).series;
      const b = evaluateRange(parseAndCheckPromQL(p.classic), classic, end - 3600_000, end, STEP_MS).series;
      const worst = Math.max(...a.flatMap((s, i) => Array.from(s.values, (v, j) => Math.abs(v - b[i].values[j]) / Math.max(1e-12, Math.abs(v)))));
      if (a.length !== b.length || !(worst < 1e-9)) throw new Error(`${p.name}: native and classic answers differ (worst relative ${worst})`);
    }
    const bench = new Bench({ time: 0, iterations: 3, warmup: true, warmupIterations: 1, warmupTime: 0 });
    for (const p of pairs) {
      const n = parseAndCheckPromQL(p.native);
      const c = parseAndCheckPromQL(p.classic);
      bench.add(`${p.name} native`, () => void evaluateRange(n, native, start, end, STEP_MS));
      bench.add(`${p.name} classic`, () => void evaluateRange(c, classic, start, end, STEP_MS));
    }
    await bench.run();
    console.log(`\nRange queries over ${HOURS} h at a 1 m step from segments (native/classic > 1: native is faster)`);
    for (const p of pairs) console.log(`  ${p.name.padEnd(22)} native/classic = ${(taskHz(bench, `${p.name} native`) / taskHz(bench, `${p.name} classic`)).toFixed(2)}x`);
  } finally {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
