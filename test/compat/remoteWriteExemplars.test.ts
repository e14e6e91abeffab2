import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/peers/processes.js';
import { PROMETHEUS_BIN, prometheusAvailable } from '../support/prometheusPeer.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';

/**
 * Exemplars from a real sender: Debian's Prometheus 2.42, with exemplar storage on, scrapes an
 * OpenMetrics target whose counters carry exemplars and remote-writes them (1.0, the version
 * it speaks, with `send_exemplars`) to Sluice, authenticating with basic_auth as the README
 * says. Sluice's /query_exemplars must then answer exactly what Prometheus' own does.
 */

const EXEMPLAR_TS = Math.floor(Date.now() / 1000) - 30;

/** TARGET is the scrape target's page: two counters with an exemplar each, fixed so every scrape repeats them. */
const TARGET = [
  '# TYPE rwx_requests counter',
  '# HELP rwx_requests Requests served.',
  `rwx_requests_total{path="/a"} 5 # {trace_id="0af7651916cd43dd8448eb211c80319c"} 1.5 ${EXEMPLAR_TS}`,
  `rwx_requests_total{path="/b"} 2 # {trace_id="b7ad6b7169203331",span_id="00f067aa0ba902b7"} 0.25 ${EXEMPLAR_TS + 1}`,
  '# EOF',
  '',
].join('\n');

const run = prometheusAvailable('remote write exemplars from Prometheus') ? describe : describe.skip;

run('exemplars remote-written by Prometheus 2.42', () => {
  let srv: TestServer;
  let target: Server;
  let prometheus: ChildProcess;
  let exited: Promise<void>;
  let promUrl = '';
  let dir = '';

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1' });
    target = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/openmetrics-text; version=1.0.0; charset=utf-8' });
      res.end(TARGET);
    });
    const targetPort = await freePort();
    await new Promise<void>((resolve) => target.listen(targetPort, '127.0.0.1', resolve));
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-rw-exemplars-'));
    await writeFile(path.join(dir, 'sluice.key'), srv.key);
    const config = [
      'global: { scrape_interval: 1s }',
      'scrape_configs:',
      '  - job_name: exemplar-target',
      `    static_configs: [{ targets: ["127.0.0.1:${targetPort}"] }]`,
      'remote_write:',
      `  - url: ${srv.url}/api/v1/write`,
      `    basic_auth: { username: sluice, password_file: ${path.join(dir, 'sluice.key')} }`,
      '    send_exemplars: true',
      '    queue_config: { batch_send_deadline: 1s, min_backoff: 100ms, max_backoff: 1s }',
      '',
    ].join('\n');
    await writeFile(path.join(dir, 'prometheus.yml'), config);
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS_BIN,
      [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--enable-feature=exemplar-storage'],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    exited = new Promise<void>((resolve) => prometheus.once('exit', () => resolve()));
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await exited;
    }
    await new Promise<void>((resolve) => target?.close(() => resolve()));
    await srv?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers query_exemplars as Prometheus does', async () => {
    const params = new URLSearchParams({ query: 'rwx_requests_total', start: String(EXEMPLAR_TS - 60), end: String(EXEMPLAR_TS + 60) });
    const fromPrometheus = async (): Promise<unknown> => (await (await fetch(`${promUrl}/api/v1/query_exemplars?${params}`)).json()) as unknown;
    const fromSluice = async (): Promise<unknown> =>
      (await (await fetch(`${srv.url}/prometheus/api/v1/query_exemplars?${params}`, { headers: { 'x-svc-api-key': srv.key } })).json()) as unknown;
    const count = (answer: unknown): number => ((answer as { data?: Array<{ exemplars: unknown[] }> }).data ?? []).reduce((n, s) => n + s.exemplars.length, 0);
    let expected: unknown;
    await waitFor(async () => {
      expected = await fromPrometheus().catch(() => undefined);
      return expected !== undefined && count(expected) === 2;
    }, 45_000);
    await waitFor(async () => count(await fromSluice()) === 2, 45_000);
    const sortBySeries = (answer: unknown) => ({
      ...(answer as object),
      data: [...(answer as { data: Array<{ seriesLabels: { path: string } }> }).data].sort((a, b) => a.seriesLabels.path.localeCompare(b.seriesLabels.path)),
    });
    const actual = sortBySeries(await fromSluice());
    expect(actual).toEqual(sortBySeries(expected));
    expect(actual).toMatchObject({
      data: [
        { seriesLabels: { __name__: 'rwx_requests_total', job: 'exemplar-target', path: '/a' }, exemplars: [{ labels: { trace_id: '0af7651916cd43dd8448eb211c80319c' }, value: '1.5', timestamp: EXEMPLAR_TS }] },
        { seriesLabels: { path: '/b' }, exemplars: [{ labels: { span_id: '00f067aa0ba902b7', trace_id: 'b7ad6b7169203331' }, value: '0.25', timestamp: EXEMPLAR_TS + 1 }] },
      ],
    });
  }, 120_000);
});
