import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../bench/peers/processes.js';

/**
 * A real Prometheus (Debian's package) on loopback, over blocks backfilled from OpenMetrics
 * text with promtool, to compare Sluice's Prometheus API with the original.
 */

export const PROMETHEUS_BIN = '/usr/bin/prometheus';
export const PROMTOOL_BIN = '/usr/bin/promtool';

/**
 * prometheusAvailable tells whether the peer binaries are installed. Without them the suite is
 * skipped with a message, except under CI=true, where .ci/run installs them and their absence
 * is a failure.
 */
export function prometheusAvailable(suite: string): boolean {
  if (existsSync(PROMETHEUS_BIN) && existsSync(PROMTOOL_BIN)) return true;
  const reason = `${suite} needs Debian's prometheus package (${PROMETHEUS_BIN}, ${PROMTOOL_BIN}); .ci/run installs it`;
  if (process.env.CI === 'true') throw new Error(`${reason}; with CI=true it is required`);
  console.warn(`skipped: ${reason}`);
  return false;
}

export interface PeerSeries {
  labels: Record<string, string>;
  samples: Array<{ value: number; timestamp: number }>;
}

/** openMetricsText renders series (grouped by metric name, as OpenMetrics requires) with second timestamps. */
export function openMetricsText(series: readonly PeerSeries[]): string {
  const byName = new Map<string, PeerSeries[]>();
  for (const s of series) {
    const name = s.labels.__name__;
    byName.set(name, [...(byName.get(name) ?? []), s]);
  }
  const lines: string[] = [];
  for (const [name, list] of byName) {
    lines.push(`# TYPE ${name} unknown`);
    for (const s of list) {
      const labels = Object.entries(s.labels)
        .filter(([k]) => k !== '__name__')
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',');
      for (const p of s.samples) lines.push(`${name}{${labels}} ${p.value} ${p.timestamp / 1000}`);
    }
  }
  lines.push('# EOF');
  return lines.join('\n') + '\n';
}

export interface PrometheusPeer {
  url: string;
  stop(): Promise<void>;
}

/** startPrometheus backfills `series` into a fresh TSDB and serves it on a loopback port. */
export async function startPrometheus(series: readonly PeerSeries[]): Promise<PrometheusPeer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-prom-peer-'));
  const input = path.join(dir, 'input.om');
  const tsdb = path.join(dir, 'tsdb');
  await writeFile(input, openMetricsText(series));
  const backfill = spawnSync(PROMTOOL_BIN, ['tsdb', 'create-blocks-from', 'openmetrics', input, tsdb], { encoding: 'utf8', timeout: 60_000 });
  if (backfill.status !== 0) throw new Error(`promtool backfill failed: ${backfill.stderr}`);
  const config = path.join(dir, 'prometheus.yml');
  await writeFile(config, 'global: {}\n');
  const port = await freePort();
  const proc: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [`--config.file=${config}`, `--storage.tsdb.path=${tsdb}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=10y'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`prometheus did not become ready: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
