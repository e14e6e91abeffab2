import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingPeerBinaries } from '../../bench/peers/peers.js';
import { SCALES } from '../../bench/peers/scales.js';
import type { LogsSuiteResult } from '../../bench/peers/logsSuite.js';
import type { IngestSuiteResult, RunReport } from '../../bench/peers/report.js';
import { isProcessAlive } from '../../src/processAlive.js';

/**
 * Runs `bench:peers` end to end at the tiny scale, with the real Prometheus and
 * VictoriaMetrics, so the harness keeps working: all three systems must hold the same
 * samples, every query must be timed on each, Sluice must answer as Prometheus does, the
 * outputs must be written, and no process it started may outlive it. Without the peers'
 * binaries the test is skipped on a development machine and fails in CI.
 */
const HARNESS = path.resolve('dist/bench/peers/main.js');
const missing = missingPeerBinaries();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
if (missing.length > 0 && !inCi) {
  console.warn(`skipping bench:peers end-to-end test: ${missing.join(', ')} not installed (apt-get install -y prometheus victoria-metrics)`);
}

interface HarnessRun {
  code: number | null;
  log: string;
}

function runHarness(args: string[], onLog?: (log: string, stop: () => void) => void): Promise<HarnessRun> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [HARNESS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const collect = (d: Buffer): void => {
      log += d.toString();
      onLog?.(log, () => proc.kill('SIGINT'));
    };
    proc.stdout.on('data', collect);
    proc.stderr.on('data', collect);
    proc.on('exit', (code) => resolve({ code, log }));
  });
}

function startedPids(log: string): number[] {
  return [...log.matchAll(/started \S+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
}

describe.skipIf(missing.length > 0 && !inCi)('bench:peers at the tiny scale', () => {
  let outDir = '';
  let run: HarnessRun;
  let report: RunReport;

  beforeAll(async () => {
    expect(missing, 'CI installs prometheus and victoria-metrics (.ci/run)').toEqual([]);
    expect(existsSync(HARNESS), 'run `npm run build` first').toBe(true);
    outDir = await mkdtemp(path.join(tmpdir(), 'bench-peers-test-'));
    run = await runHarness(['--scale', 'tiny', '--reps', '2', '--quick-reps', '3', '--no-install', '--out', outDir, '--viewers', '2', '--concurrency-seconds', '3', '--results-cache-rows']);
    const json = readdirSync(outDir).find((f) => f.endsWith('-tiny.json'));
    if (json !== undefined) report = JSON.parse(readFileSync(path.join(outDir, json), 'utf8')) as RunReport;
  }, 150_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('finishes successfully and stops every process it started', () => {
    expect(run.code, run.log).toBe(0);
    const pids = startedPids(run.log);
    // Sluice, VictoriaMetrics, Prometheus, Sluice with its results cache for the extra viewer rows,
    // and Sluice again: the logs suite restarts it for cold runs.
    expect(pids).toHaveLength(5);
    expect(pids.filter(isProcessAlive)).toEqual([]);
  });

  it('loads the same samples into all three systems', () => {
    const tiny = SCALES.tiny;
    const expected = (tiny.counterSeries + tiny.histogramSeries) * (tiny.hours * 240 + 1);
    expect(report.dataset.samples).toBe(expected);
    expect(report.sampleCounts).toEqual({ sluice: expected, prometheus: expected, victoria: expected });
  });

  it('times every query on every system and Sluice answers as Prometheus does', () => {
    // Eleven expressions, each over the tiny scale's one window and as an instant query.
    expect(report.queries).toHaveLength(11 * 2);
    expect(report.quickRepetitions).toBe(3);
    for (const q of report.queries) {
      const names = ['sluice', 'sluice-compact', 'sluice-prom', 'prometheus', 'victoria'] as const;
      // Two rounds for every case, a third only where every system's two runs were quick.
      const quick = names.every((name) => q.systems[name]!.runsMs.slice(0, 2).every((ms) => ms < report.quickCaseMs));
      for (const name of names) {
        const timings = q.systems[name]!;
        expect(timings.runsMs, `${q.id} on ${name}`).toHaveLength(quick ? 3 : 2);
        expect(timings.medianMs).toBeGreaterThan(0);
        expect(timings.bytes).toBeGreaterThan(0);
      }
      expect(q.ratios.prometheus).toBeCloseTo(q.systems.sluice!.medianMs / q.systems.prometheus!.medianMs, 9);
      expect(q.agreement.sluice!.points, q.id).toBeGreaterThan(0);
      expect(q.agreement.sluice!.examples, q.id).toEqual([]);
      // The same Sluice asked through its Prometheus API answers the same, and its cost is recorded.
      expect(q.agreement['sluice-prom']!.points, q.id).toBe(q.agreement.sluice!.points);
      expect(q.agreement['sluice-prom']!.examples, q.id).toEqual([]);
      expect(q.prometheusApiRatios!.sse).toBeCloseTo(q.systems['sluice-prom']!.medianMs / q.systems.sluice!.medianMs, 9);
      // So does the compact SSE format, in fewer bytes once series have many points.
      expect(q.agreement['sluice-compact']!.points, q.id).toBe(q.agreement.sluice!.points);
      expect(q.agreement['sluice-compact']!.examples, q.id).toEqual([]);
      if (q.kind === 'range') expect(q.systems['sluice-compact']!.bytes, q.id).toBeLessThan(q.systems.sluice!.bytes);
      expect(q.compactRatios!.sse).toBeCloseTo(q.systems['sluice-compact']!.medianMs / q.systems.sluice!.medianMs, 9);
      expect(q.agreement.victoria).toBeDefined();
    }
  });

  it('runs the dashboard viewers against each system without errors', () => {
    // The main rows time every system without a results cache; the extra row is labelled as cached.
    expect(report.concurrency.map((l) => `${l.system}:${l.viewers}`).sort()).toEqual(['prometheus:2', 'sluice-cache:2', 'sluice-compact:2', 'sluice-prom:2', 'sluice:2', 'victoria:2']);
    for (const level of report.concurrency) {
      expect(level.errors, level.firstError).toBe(0);
      expect(level.queries).toBeGreaterThan(0);
      expect(level.cpuSecondsPerQuery).toBeGreaterThan(0);
      expect(level.clientCpuSecondsPerQuery).toBeGreaterThan(0);
      expect(level.peakRssMiB).toBeGreaterThan(1);
    }
  });

  it('counts log lines as grep does and measures bytes on disk', () => {
    const logs = report.suites.logs as LogsSuiteResult;
    expect(logs.grep.matches).toBeGreaterThan(0);
    expect(logs.sluiceFilterCount).toBe(logs.grep.matches);
    expect(logs.sluiceTotalCount).toBe(SCALES.tiny.logLines);
    expect(logs.queries.every((q) => q.coldMs > 0 && q.warmMedianMs > 0)).toBe(true);
    const ingest = report.suites.ingest as IngestSuiteResult;
    expect(ingest.sluiceRemoteWriteSamplesPerSecond).toBeGreaterThan(0);
    expect(ingest.prometheusBytesPerSample).toBeGreaterThan(0);
    expect(ingest.victoriaBytesPerSample).toBeGreaterThan(0);
    // Sluice's data is in segments or still in its write-ahead log.
    expect(ingest.sluiceBytesPerSample + ingest.sluiceWalBytesPerSampleOrLine).toBeGreaterThan(0);
  });

  it('writes a Markdown report with the query table and a chart', () => {
    const md = readdirSync(outDir).find((f) => f.endsWith('-tiny.md'));
    expect(md).toBeDefined();
    const text = readFileSync(path.join(outDir, md!), 'utf8');
    expect(text).toContain('| Query | Window | Sluice ms (p90)');
    expect(text).toContain('### Sluice with the compact SSE format');
    expect(text).toContain('| histogram_quantile | instant |');
    const png = md!.replace(/\.md$/, '.png');
    expect(text).toContain(`](${png})`);
    expect(readFileSync(path.join(outDir, png)).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe.skipIf(missing.length > 0 && !inCi)('bench:peers interrupted', () => {
  it('stops the systems it started on SIGINT', async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), 'bench-peers-int-'));
    try {
      let interrupted = false;
      const run = await runHarness(['--scale', 'tiny', '--no-install', '--out', outDir], (log, stop) => {
        if (!interrupted && startedPids(log).length >= 2) {
          interrupted = true;
          stop();
        }
      });
      expect(interrupted).toBe(true);
      expect(run.code).not.toBe(0);
      const pids = startedPids(run.log);
      expect(pids.length).toBeGreaterThanOrEqual(2);
      expect(pids.filter(isProcessAlive)).toEqual([]);
      expect(readdirSync(outDir)).toEqual([]);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(missing.length > 0 && !inCi)('bench:peers with --keep', () => {
  it('loads once, and a second run asks the same questions of the kept data', async () => {
    const keepDir = await mkdtemp(path.join(tmpdir(), 'bench-peers-keep-'));
    const outDir = await mkdtemp(path.join(tmpdir(), 'bench-peers-keep-out-'));
    try {
      const args = ['--scale', 'tiny', '--reps', '1', '--quick-reps', '1', '--no-install', '--suites', 'queries', '--keep', keepDir];
      const first = await runHarness([...args, '--out', path.join(outDir, 'first')]);
      expect(first.code, first.log).toBe(0);
      expect(first.log).toContain('prometheus blocks written');
      expect(existsSync(path.join(keepDir, 'loaded.json'))).toBe(true);
      const second = await runHarness([...args, '--out', path.join(outDir, 'second')]);
      expect(second.code, second.log).toBe(0);
      expect(second.log).toContain(`using the data loaded into ${keepDir}`);
      expect(second.log).not.toContain('prometheus blocks written');
      expect([...startedPids(first.log), ...startedPids(second.log)].filter(isProcessAlive)).toEqual([]);
      const reportOf = (dir: string): RunReport => {
        const json = readdirSync(dir).find((f) => f.endsWith('-tiny.json'))!;
        return JSON.parse(readFileSync(path.join(dir, json), 'utf8')) as RunReport;
      };
      const [a, b] = [reportOf(path.join(outDir, 'first')), reportOf(path.join(outDir, 'second'))];
      expect(b.dataset).toEqual(a.dataset);
      expect(b.sampleCounts).toEqual(a.sampleCounts);
      expect(b.load.loadedByAnEarlierRunAt).toBeDefined();
      for (const q of b.queries) expect(q.agreement.sluice!.examples, q.id).toEqual([]);
      expect(b.queries.map((q) => q.agreement.sluice!.points)).toEqual(a.queries.map((q) => q.agreement.sluice!.points));
    } finally {
      await rm(keepDir, { recursive: true, force: true });
      await rm(outDir, { recursive: true, force: true });
    }
  }, 150_000);
});
