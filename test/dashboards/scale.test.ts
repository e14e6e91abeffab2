import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTED_ISSUES } from '../../src/dashboards/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { manyPanelsSpec, minimalSpec, type Json, type JsonObject } from './fixtures.js';

/**
 * Large and pathological specs against the real server: lint time grows with the spec, not
 * with pairs of cells; answers list a bounded number of findings and count the rest; a body
 * past the dashboard limit is refused before it is read.
 */

interface Timed {
  status: number;
  body: Record<string, unknown>;
  bytes: number;
  ms: number;
  /**
   * cpuMs is the CPU time this test process spent on the exchange, client and in-process server
   * together: unlike wall time it does not grow when other work shares the machine.
   */
  cpuMs: number;
}

interface Listing {
  valid: boolean;
  errors: Array<{ rule: string }>;
  warnings: Array<{ rule: string; path: string }>;
  truncated?: { errors: number; warnings: number };
}

describe('dashboard specs at scale', () => {
  let srv: TestServer;
  let small: TestServer;

  beforeAll(async () => {
    // 10,000 panels with real queries take about 1.9 MB, past the 1 MiB default.
    srv = await startTestServer({ SVC_DASHBOARD_MAX_BODY_BYTES: '8MiB' });
    small = await startTestServer({ SVC_DASHBOARD_MAX_BODY_BYTES: '64KiB' });
  });
  afterAll(async () => {
    await srv?.stop();
    await small?.stop();
  });

  async function send(server: TestServer, method: string, url: string, body: string): Promise<Timed> {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const res = await fetch(`${server.url}${url}`, { method, headers: { 'x-svc-api-key': server.key, 'content-type': 'application/json' }, body });
    const text = await res.text();
    const used = process.cpuUsage(cpu);
    return {
      status: res.status,
      body: JSON.parse(text) as Record<string, unknown>,
      bytes: text.length,
      ms: performance.now() - started,
      cpuMs: (used.user + used.system) / 1000,
    };
  }

  const validateUrl = (server: TestServer): string => `/api/orgs/${server.orgId}/dashboards/validate`;

  it('lints a 10,000-panel dashboard within a generous bound', async () => {
    const spec = JSON.stringify(manyPanelsSpec(10_000, 'tiled'));
    // The first request compiles the schema; time a second one, as a running server sees it.
    await send(srv, 'POST', validateUrl(srv), JSON.stringify(minimalSpec()));
    const res = await send(srv, 'POST', validateUrl(srv), spec);
    process.stdout.write(`10,000 panels (${spec.length} bytes): validated in ${res.ms.toFixed(0)} ms, ${res.cpuMs.toFixed(0)} ms CPU\n`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [], warnings: [] });
    // The bound is on CPU time, which a busy machine does not inflate; wall time gets a loose one.
    expect(res.cpuMs).toBeLessThan(3000);
    expect(res.ms).toBeLessThan(20_000);
  });

  it('answers 2,000 cells on one spot quickly, with one finding per cell, listing 100 and counting the rest', async () => {
    const spec = JSON.stringify(manyPanelsSpec(2_000, 'stacked'));
    const res = await send(srv, 'POST', validateUrl(srv), spec);
    process.stdout.write(`2,000 overlapping cells: validated in ${res.ms.toFixed(0)} ms, ${res.cpuMs.toFixed(0)} ms CPU, answer ${res.bytes} bytes\n`);
    expect(res.status).toBe(200);
    const listing = res.body as unknown as Listing;
    expect(listing.valid).toBe(true);
    expect(listing.warnings).toHaveLength(MAX_LISTED_ISSUES);
    expect(new Set(listing.warnings.map((w) => w.path)).size).toBe(MAX_LISTED_ISSUES);
    expect(listing.warnings.every((w) => w.rule === 'cell-overlap')).toBe(true);
    // Every cell but the first overlaps one above it: 1,999 findings, 100 listed.
    expect(listing.truncated).toEqual({ errors: 0, warnings: 1_999 - MAX_LISTED_ISSUES });
    expect(res.bytes).toBeLessThan(100_000);
    expect(res.cpuMs).toBeLessThan(3000);

    // A create succeeds and carries the same bounded warnings.
    const created = await send(srv, 'POST', `/api/orgs/${srv.orgId}/dashboards?name=Stacked`, spec);
    expect(created.status).toBe(201);
    expect(created.body.warnings).toHaveLength(MAX_LISTED_ISSUES);
    expect(created.body.truncated).toEqual({ errors: 0, warnings: 1_999 - MAX_LISTED_ISSUES });
  });

  it('caps lint errors on a refused write, counting every error in the message', async () => {
    const spec = minimalSpec() as JsonObject & { sections: Array<{ cells: Json[] }> };
    for (let n = 0; n < 500; n++) spec.sections[0].cells.push({ i: `missing-${n}`, x: 0, y: 10 + n * 4, w: 6, h: 4 });
    const res = await send(srv, 'POST', `/api/orgs/${srv.orgId}/dashboards?name=Broken`, JSON.stringify(spec));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(String(res.body.message)).toMatch(/^the dashboard spec has 500 errors; /);
    const details = res.body.details as Listing;
    expect(details.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(details.errors.every((e) => e.rule === 'unknown-panel')).toBe(true);
    expect(details.truncated).toEqual({ errors: 500 - MAX_LISTED_ISSUES, warnings: 0 });
  });

  it('answers quickly when many cells name missing panels among thousands of long, similar ids', async () => {
    // Each unknown id gets a "did you mean" search over the panel ids; unbounded, this spec took
    // about seven minutes (100 listed findings x 3,000 ids x 200 x 200 characters compared).
    const length = 200;
    const panels: JsonObject = {};
    const cells: Json[] = [];
    for (let n = 0; n < 3_000; n++) {
      const id = 'p'.repeat(length - 6) + String(n).padStart(6, '0');
      panels[id] = { id, kind: 'label', title: 'Label', queries: [{ query: 'up' }] };
      cells.push({ i: id, x: 0, y: n, w: 1, h: 1 });
    }
    for (let n = 0; n < 150; n++) cells.push({ i: 'p'.repeat(length - 6) + String(900_000 + n), x: 1, y: n, w: 1, h: 1 });
    const spec = { duration: '1h', panels, sections: [{ title: 'Main', cells }] };
    const res = await send(srv, 'POST', validateUrl(srv), JSON.stringify(spec));
    process.stdout.write(`150 unknown panels among 3,000 long ids: validated in ${res.ms.toFixed(0)} ms, ${res.cpuMs.toFixed(0)} ms CPU\n`);
    expect(res.status).toBe(200);
    const listing = res.body as unknown as Listing;
    expect(listing.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(listing.errors.every((e) => e.rule === 'unknown-panel')).toBe(true);
    expect(listing.truncated).toEqual({ errors: 150 - MAX_LISTED_ISSUES, warnings: 0 });
    expect(res.cpuMs).toBeLessThan(3000);
  });

  it('answers quickly for unknown fields with very long names', async () => {
    const spec: JsonObject = { ...minimalSpec() };
    for (let n = 0; n < 10; n++) spec[`${'k'.repeat(90_000)}${n}`] = 1;
    const res = await send(srv, 'POST', validateUrl(srv), JSON.stringify(spec));
    expect(res.status).toBe(200);
    expect((res.body as unknown as Listing).errors).toHaveLength(10);
    expect(res.cpuMs).toBeLessThan(2000);
  });

  it('caps schema errors too, translating only the listed ones', async () => {
    // Just under 1 MB with three problems per cell: x is a string, y is negative, colour is not
    // a field. Translating all 60,000 took about a second of CPU more than checking them.
    const cells: Json[] = [];
    for (let n = 0; n < 20_000; n++) cells.push({ i: 'rate', x: 'left', y: -1, w: 6, h: 4, colour: 'red' });
    const spec = { ...minimalSpec(), sections: [{ title: 'Main', cells }] };
    const res = await send(srv, 'POST', validateUrl(srv), JSON.stringify(spec));
    process.stdout.write(`60,000 schema errors: validated in ${res.ms.toFixed(0)} ms, ${res.cpuMs.toFixed(0)} ms CPU\n`);
    expect(res.status).toBe(200);
    const listing = res.body as unknown as Listing;
    expect(listing.valid).toBe(false);
    expect(listing.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(listing.truncated).toEqual({ errors: 3 * 20_000 - MAX_LISTED_ISSUES, warnings: 0 });
    expect(res.bytes).toBeLessThan(100_000);
    expect(res.cpuMs).toBeLessThan(3000);
  });

  it('refuses a spec past SVC_DASHBOARD_MAX_BODY_BYTES with 413 and the JSON error, on every endpoint that takes one', async () => {
    const big = JSON.stringify(manyPanelsSpec(400, 'tiled'));
    expect(big.length).toBeGreaterThan(64 * 1024);
    const base = `/api/orgs/${small.orgId}/dashboards`;
    for (const [method, url] of [
      ['POST', base],
      ['POST', `${base}/validate`],
      ['PUT', `${base}/anything`],
      ['PUT', `${base}?id=anything`],
    ]) {
      const res = await send(small, method, url, big);
      expect(res.status, `${method} ${url}`).toBe(413);
      expect(res.body).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
      expect(String(res.body.message)).toContain(String(64 * 1024));
    }
    // The server is fine afterwards, and a spec under the limit goes through.
    const ok = await send(small, 'POST', `${base}?name=Small`, JSON.stringify(minimalSpec()));
    expect(ok.status).toBe(201);
  });
});
