import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterBackendsAvailable } from '../../bench/cluster/backends.js';
import type { ReplicaReport } from '../../bench/replicas/report.js';
import { SCALES } from '../../bench/peers/scales.js';
import { isProcessAlive } from '../../src/processAlive.js';

/**
 * Runs `bench:replicas` end to end at the tiny scale with one and two query and ingest
 * replicas, a few seconds each (two rounds), over the real backends (PostgreSQL, NATS JetStream, s3rver),
 * so the harness keeps working: every replica must hold every sample, every row must be in the
 * table with queries answered and no errors, both files must be written, and no Sluice process
 * it started may outlive it.
 */
const HARNESS = path.resolve('dist/bench/replicas/main.js');

interface HarnessRun {
  code: number | null;
  stdout: string;
  log: string;
}

function runHarness(args: string[]): Promise<HarnessRun> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [HARNESS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let log = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, log }));
  });
}

describe.runIf(clusterBackendsAvailable('the replica benchmark test'))('bench:replicas at the tiny scale', () => {
  let outDir = '';
  let run: HarnessRun;
  let report: ReplicaReport;
  let markdown = '';

  beforeAll(async () => {
    expect(existsSync(HARNESS), 'run `npm run build` first').toBe(true);
    outDir = await mkdtemp(path.join(tmpdir(), 'bench-replicas-test-'));
    run = await runHarness(['--scale', 'tiny', '--query-replicas', '1,2', '--ingest-replicas', '1,2', '--ingesters', '1', '--partitions', '2', '--viewers', '2', '--seconds', '3', '--rounds', '2', '--senders', '2', '--out', outDir]);
    const json = readdirSync(outDir).find((f) => f.endsWith('-replicas.json'));
    if (json !== undefined) {
      report = JSON.parse(readFileSync(path.join(outDir, json), 'utf8')) as ReplicaReport;
      markdown = readFileSync(path.join(outDir, json.replace(/\.json$/, '.md')), 'utf8');
    }
  }, 150_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('finishes successfully and stops every Sluice process it started', () => {
    expect(run.code, run.log).toBe(0);
    const pids = [...run.log.matchAll(/started \S+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    // One ingester, the compactor, two ingest and two query replicas.
    expect(pids).toHaveLength(6);
    expect(pids.filter(isProcessAlive)).toEqual([]);
  });

  it('loads the dataset through the ingest replicas and every query replica sees every sample', () => {
    const tiny = SCALES.tiny;
    const expected = (tiny.counterSeries + tiny.histogramSeries) * (tiny.hours * 240 + 1);
    expect(report.dataset.samples).toBe(expected);
    expect(report.sampleCounts).toEqual({ 'query-1': expected, 'query-2': expected });
    expect(report.ingest.map((r) => r.ingestReplicas)).toEqual([1, 2]);
    expect(report.ingest.reduce((n, r) => n + r.samples, 0)).toBe(expected);
    for (const row of report.ingest) {
      expect(row.errors, row.firstError).toBe(0);
      expect(row.samplesPerSecond).toBeGreaterThan(0);
      expect(row.sluiceCpuSeconds).toBeGreaterThan(0);
    }
    expect(report.ingest[0].ratioToOne).toBe(1);
  });

  it('answers dashboard queries at every replica count, without errors, with the CPU of every process', () => {
    expect(report.dashboards.map((r) => r.queryReplicas)).toEqual([1, 2]);
    for (const row of report.dashboards) {
      expect(row.errors, row.firstError).toBe(0);
      expect(row.queries).toBeGreaterThan(0);
      expect(row.queriesPerSecond).toBeGreaterThan(0);
      expect(row.p50Ms).toBeGreaterThan(0);
      expect(row.cpuSecondsPerQuery).toBeGreaterThan(0);
      expect(row.machineBusy).toBeGreaterThan(0);
    }
    expect(report.dashboards[0].ratioToOne).toBe(1);
    // Two rounds, ascending then descending; each row sums its two windows.
    expect(report.dashboardWindows.map((w) => [w.round, w.queryReplicas])).toEqual([[1, 1], [1, 2], [2, 2], [2, 1]]);
    for (const row of report.dashboards) {
      const windows = report.dashboardWindows.filter((w) => w.queryReplicas === row.queryReplicas);
      expect(row.queries).toBe(windows[0].queries + windows[1].queries);
    }
    expect(report.dashboards[1].ratioToOne).toBeCloseTo(report.dashboards[1].queriesPerSecond / report.dashboards[0].queriesPerSecond, 2);
  });

  it('prints and writes the tables and what limited scaling', () => {
    for (const text of [run.stdout, markdown]) {
      expect(text).toMatch(/^\| 1 \| [\d.]+ \| 1\.00× \|/m);
      expect(text).toMatch(/^\| 2 \| [\d.]+ \| [\d.]+× \|/m);
      expect(text).toContain('| Query replicas |');
      expect(text).toContain('| Ingest replicas |');
      expect(text).toMatch(/of \d+ cores busy/);
    }
    expect(report.limits).toMatch(/Dashboards: with 1 query replica/);
    expect(report.limits).toMatch(/Ingest: 1 replica/);
  });
});
