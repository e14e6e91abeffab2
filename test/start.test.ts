import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { query, readSse } from './support/sse.js';

/**
 * What a newcomer runs: the package's start script (after its build step, which `npm test`
 * has already done) with no configuration at all. It must serve on port 8080, print a key,
 * and have demo data to query, and the example dashboards to draw it, within seconds.
 */
describe('npm start', () => {
  it('serves on 8080 with a printed key and queryable demo data', async () => {
    const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    // The script execs node, so signals npm forwards reach the server rather than the shell.
    const [exec, command, ...args] = script.split(' ');
    expect(exec).toBe('exec');
    expect(command).toBe('node');
    const cwd = await mkdtemp(path.join(tmpdir(), 'sluice-start-'));
    const env = { ...process.env, SVC_HOST: '127.0.0.1' } as Record<string, string>;
    for (const name of Object.keys(env)) if (name.startsWith('SVC_') && name !== 'SVC_HOST') delete env[name];
    const child = spawn(process.execPath, args.map((a, i) => (i === 0 ? path.resolve(a) : a)), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('demo data backfilled')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no demo data:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain('"port":8080');
      expect((await fetch('http://127.0.0.1:8080/healthz')).status).toBe(200);
      const key = /API key: (slk_\S+)/.exec(err)?.[1];
      expect(key).toBeDefined();
      const res = await readSse(await query('http://127.0.0.1:8080', '/api/v1/metrics/query', key!, { q: 'sum by (service_name) (rate(http_requests_total[5m]))', s: 'now-30m', step: 60 }));
      const services = new Set(res.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).service_name));
      expect([...services].sort()).toEqual(['catalog', 'checkout', 'frontend', 'inventory', 'payments']);
      const logs = await readSse(await query('http://127.0.0.1:8080', '/api/v1/logs/query', key!, { q: '{service_name="payments"}', limit: 3 }));
      expect(logs.events.filter((e) => e.type === 'result')).toHaveLength(3);
      // The example dashboards are there from the first start, in the printed org.
      const org = /org id:\s+(\S+)/.exec(err)?.[1];
      const listed = (await (await fetch(`http://127.0.0.1:8080/api/orgs/${org}/dashboards`, { headers: { 'x-svc-api-key': key! } })).json()) as { items: Array<{ id: string }> };
      expect(listed.items.map((d) => d.id).sort()).toEqual(['all-panels', 'logs-explorer', 'service-overview', 'sluice-demo']);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await rm(cwd, { recursive: true, force: true });
    }
  }, 90_000);
});
