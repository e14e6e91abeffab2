import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMTOOL_BIN, prometheusAvailable, type PrometheusPeer } from '../support/prometheusPeer.js';
import { END_S, startBothWithDemoData } from '../support/prometheusData.js';
import type { TestServer } from '../support/server.js';

/**
 * promtool's query commands pointed at Sluice's Prometheus API (the key as the Basic auth
 * password in the URL, as promtool 2.42 has no other way to send one) succeed and print what
 * they print against Prometheus over the same data.
 */

/** promtool runs asynchronously: the server under test answers from this very process. */
function promtool(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** COMMANDS are promtool invocations without the server argument, which goes after the subcommand. */
const COMMANDS: Array<{ name: string; sub: string[]; rest: string[]; unordered?: boolean }> = [
  { name: 'instant', sub: ['query', 'instant', `--time=${END_S}`], rest: ['sum by (job, code) (rate(http_requests_total[5m]))'], unordered: true },
  { name: 'instant scalar', sub: ['query', 'instant', `--time=${END_S}`], rest: ['scalar(sum(temperature))'] },
  { name: 'range', sub: ['query', 'range', `--start=${END_S - 1800}`, `--end=${END_S}`, '--step=1m'], rest: ['temperature'] },
  { name: 'series', sub: ['query', 'series', '--match=http_requests_total{instance="a"}', '--match=deploys'], rest: [] },
  { name: 'labels', sub: ['query', 'labels', '--match=http_requests_total'], rest: ['code'] },
];

const suite = prometheusAvailable('the promtool compatibility test') ? describe : describe.skip;

suite('promtool query against the Prometheus API', () => {
  let srv: TestServer;
  let prom: PrometheusPeer;

  beforeAll(async () => {
    ({ srv, prom } = await startBothWithDemoData());
  }, 90_000);

  afterAll(async () => {
    await Promise.all([srv?.stop(), prom?.stop()]);
  });

  for (const command of COMMANDS) {
    it(`promtool query ${command.name} prints the same as against Prometheus`, async () => {
      const sluiceUrl = `http://grafana:${encodeURIComponent(srv.key)}@${srv.url.slice('http://'.length)}/prometheus`;
      const ours = await promtool([...command.sub, sluiceUrl, ...command.rest]);
      const theirs = await promtool([...command.sub, prom.url, ...command.rest]);
      expect(theirs.status, theirs.stderr).toBe(0);
      expect(ours.status, ours.stderr).toBe(0);
      expect(theirs.stdout.trim()).not.toBe('');
      const lines = (text: string): string[] => (command.unordered ? text.split('\n').sort() : text.split('\n'));
      expect(lines(ours.stdout)).toEqual(lines(theirs.stdout));
    });
  }

  it('promtool without the key is refused', async () => {
    const res = await promtool(['query', 'instant', `${srv.url}/prometheus`, '1+1']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/401|unauthorized|API key/i);
  });
});
