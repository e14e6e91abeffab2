import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { minimalSpec, type JsonObject } from './fixtures.js';

const SYSTEM_KEY = 'system-key-for-dashboard-tests-0123456789abcdef';
const EXAMPLES_DIR = path.join(packageRoot(), 'examples', 'dashboards');

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

interface Issue {
  rule: string;
  path: string;
  message: string;
}

describe('dashboard endpoints', () => {
  let srv: TestServer;
  let otherOrg: string;
  let otherKey: string;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
    const org = await srv.admin.createOrg('other-org');
    otherOrg = org.id;
    otherKey = (await srv.admin.createKey(org.id, 'other')).key;
  });
  afterAll(async () => {
    await srv.stop();
  });

  /** call sends a request with the test org's key unless told otherwise, and parses any JSON answer. */
  async function call(method: string, url: string, options: { body?: unknown; raw?: string; key?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? srv.key : options.key;
    if (key !== null) headers['x-svc-api-key'] = key;
    let payload: string | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${srv.url}${url}`, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  const base = (): string => `/api/orgs/${srv.orgId}/dashboards`;

  it('publishes the schema without a key', async () => {
    const res = await fetch(`${srv.url}/api/v1/schemas/dashboard.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const published = (await res.json()) as Record<string, unknown>;
    const file = JSON.parse(readFileSync(path.join(packageRoot(), 'schemas', 'dashboard.schema.json'), 'utf8')) as Record<string, unknown>;
    expect(published).toEqual(file);
    expect(published.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('creates a dashboard with a chosen id, answering 201 with version, ETag and Location', async () => {
    const res = await call('POST', `${base()}?name=Create%20me&id=create-me`, { body: minimalSpec() });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.headers.get('location')).toBe(`${base()}/create-me`);
    expect(res.body).toMatchObject({ id: 'create-me', orgId: srv.orgId, name: 'Create me', category: 'Custom', version: 1, warnings: [] });
    expect(res.body.spec).toEqual(minimalSpec());
    expect(Date.parse(String(res.body.createdAt))).not.toBeNaN();
  });

  it('generates an id when none is given and reads the category from the spec', async () => {
    const res = await call('POST', `${base()}?name=Generated`, { body: { ...minimalSpec(), category: 'Ops' } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.category).toBe('Ops');
    const again = await call('GET', `${base()}/${String(res.body.id)}`);
    expect(again.body.name).toBe('Generated');
  });

  it('creates from the spec alone, as the spec shows it: no name parameter, a generated name', async () => {
    const res = await call('POST', base(), { body: minimalSpec() });
    expect(res.status).toBe(201);
    const id = String(res.body.id);
    expect(res.body.name).toBe(`Untitled dashboard ${id.slice(0, 8)}`);
    expect((await call('GET', `${base()}/${id}`)).body.name).toBe(res.body.name);
    // A chosen id names the dashboard when no name is given; an empty name is still refused.
    const chosen = await call('POST', `${base()}?id=checkout-latency`, { body: minimalSpec() });
    expect(chosen.status).toBe(201);
    expect(chosen.body.name).toBe('checkout-latency');
    const empty = await call('POST', `${base()}?name=%20`, { body: minimalSpec() });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuses a create with a bad or taken id', async () => {
    const badId = await call('POST', `${base()}?name=x&id=${encodeURIComponent('a/b')}`, { body: minimalSpec() });
    expect(badId.status).toBe(400);
    const reserved = await call('POST', `${base()}?name=x&id=validate`, { body: minimalSpec() });
    expect(reserved.status).toBe(400);
    await call('POST', `${base()}?name=first&id=taken`, { body: minimalSpec() });
    const taken = await call('POST', `${base()}?name=second&id=taken`, { body: minimalSpec() });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'CONFLICT' });
  });

  it('rejects an invalid spec with 400 VALIDATION_FAILED and every finding by path', async () => {
    const spec = minimalSpec() as JsonObject & { panels: Record<string, JsonObject> };
    spec.panels.rate.kind = 'lines';
    spec.bogus = true;
    const res = await call('POST', `${base()}?name=bad`, { body: spec });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const details = res.body.details as { errors: Issue[]; warnings: Issue[] };
    expect(details.errors.map((e) => e.path).sort()).toEqual(['$.bogus', '$.panels.rate.kind']);
    expect(String(res.body.message)).toContain('2 errors');
  });

  it('refuses libraryRef on create with a clear error', async () => {
    const res = await call('POST', `${base()}?name=lib`, { body: { ...minimalSpec(), libraryRef: 'gallery/x' } });
    expect(res.status).toBe(400);
    const details = res.body.details as { errors: Issue[] };
    expect(details.errors).toEqual([expect.objectContaining({ rule: 'library-ref', path: '$.libraryRef' })]);
    expect(String(res.body.message)).toContain('libraryRef');
  });

  it('returns lint warnings beside a stored dashboard', async () => {
    const spec = minimalSpec() as JsonObject & { sections: Array<{ cells: unknown[] }> };
    spec.sections[0].cells.pop();
    const res = await call('POST', `${base()}?name=warned`, { body: spec });
    expect(res.status).toBe(201);
    expect((res.body.warnings as Issue[]).map((w) => w.rule)).toEqual(['unplaced-panel']);
  });

  it('gets one dashboard with its ETag, and 404 for an unknown id', async () => {
    await call('POST', `${base()}?name=Get%20me&id=get-me`, { body: minimalSpec() });
    const res = await call('GET', `${base()}/get-me`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.body).toMatchObject({ id: 'get-me', name: 'Get me', version: 1, spec: minimalSpec() });
    const missing = await call('GET', `${base()}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('replaces with PUT /dashboards/{id}: new version, libraryRef removed, name kept unless given', async () => {
    await call('POST', `${base()}?name=Replace%20me&id=replace-me`, { body: minimalSpec() });
    const next = { ...minimalSpec(), duration: '7d', libraryRef: 'gallery/replace' };
    const res = await call('PUT', `${base()}/replace-me`, { body: next, headers: { 'if-match': '"1"' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toMatchObject({ id: 'replace-me', name: 'Replace me', version: 2 });
    expect(res.body.spec).toEqual({ ...minimalSpec(), duration: '7d' });
    expect((res.body.warnings as Issue[]).map((w) => w.rule)).toEqual(['library-ref']);
    const stored = await call('GET', `${base()}/replace-me`);
    expect(stored.body.spec).not.toHaveProperty('libraryRef');
    const renamed = await call('PUT', `${base()}/replace-me?name=Renamed`, { body: minimalSpec() });
    expect(renamed.body).toMatchObject({ name: 'Renamed', version: 3 });
  });

  it('replaces with the spec\'s PUT /dashboards form, naming the dashboard with ?id=', async () => {
    await call('POST', `${base()}?name=Query%20form&id=query-form`, { body: minimalSpec() });
    const res = await call('PUT', `${base()}?id=query-form`, { body: { ...minimalSpec(), duration: '2h' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'query-form', version: 2 });
    const noId = await call('PUT', base(), { body: minimalSpec() });
    expect(noId.status).toBe(400);
    expect(String(noId.body.message)).toContain('?id=');
    const unknown = await call('PUT', `${base()}/never-created`, { body: minimalSpec() });
    expect(unknown.status).toBe(404);
  });

  it('answers a stale If-Match with 412, the current version in the body and the ETag', async () => {
    await call('POST', `${base()}?name=Race&id=race`, { body: minimalSpec() });
    const first = await call('PUT', `${base()}/race`, { body: minimalSpec(), headers: { 'if-match': '"1"' } });
    expect(first.status).toBe(200);
    const second = await call('PUT', `${base()}/race`, { body: { ...minimalSpec(), duration: '3h' }, headers: { 'if-match': '"1"' } });
    expect(second.status).toBe(412);
    expect(second.headers.get('etag')).toBe('"2"');
    expect(second.body).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', details: { currentVersion: 2 } });
    expect((await call('GET', `${base()}/race`)).body.spec).toEqual(minimalSpec());
    // A list of tags matches when one of them is current; * matches any version.
    expect((await call('PUT', `${base()}/race`, { body: minimalSpec(), headers: { 'if-match': '"1", "2"' } })).status).toBe(200);
    expect((await call('PUT', `${base()}/race`, { body: minimalSpec(), headers: { 'if-match': '"7", "8"' } })).status).toBe(412);
    expect((await call('PUT', `${base()}/race`, { body: minimalSpec(), headers: { 'if-match': '*' } })).body.version).toBe(4);
    // Without If-Match the last write wins.
    expect((await call('PUT', `${base()}/race`, { body: minimalSpec() })).body.version).toBe(5);
  });

  it('compares If-Match strongly: a weak tag never matches, even naming the current version', async () => {
    await call('POST', `${base()}?name=Weak&id=weak-tag`, { body: minimalSpec() });
    const weakPut = await call('PUT', `${base()}/weak-tag`, { body: { ...minimalSpec(), duration: '6h' }, headers: { 'if-match': 'W/"1"' } });
    expect(weakPut.status).toBe(412);
    expect(weakPut.body).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', details: { currentVersion: 1 } });
    expect(weakPut.headers.get('etag')).toBe('"1"');
    const weakDelete = await call('DELETE', `${base()}/weak-tag`, { headers: { 'if-match': 'W/"1"' } });
    expect(weakDelete.status).toBe(412);
    // A weak tag beside the strong current one does not spoil the match.
    const mixed = await call('PUT', `${base()}/weak-tag`, { body: minimalSpec(), headers: { 'if-match': 'W/"1", "1"' } });
    expect(mixed.status).toBe(200);
    expect(mixed.body.version).toBe(2);
    expect((await call('GET', `${base()}/weak-tag`)).body.version).toBe(2);
  });

  it('deletes, honouring If-Match', async () => {
    await call('POST', `${base()}?name=Delete%20me&id=delete-me`, { body: minimalSpec() });
    const stale = await call('DELETE', `${base()}/delete-me`, { headers: { 'if-match': '"9"' } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ details: { currentVersion: 1 } });
    const res = await call('DELETE', `${base()}/delete-me`, { headers: { 'if-match': '"1"' } });
    expect(res.status).toBe(204);
    expect((await call('GET', `${base()}/delete-me`)).status).toBe(404);
    expect((await call('DELETE', `${base()}/delete-me`)).status).toBe(404);
  });

  it('lists with paging and search by name and category', async () => {
    const org = await srv.admin.createOrg('listing-org');
    const key = (await srv.admin.createKey(org.id, 'list')).key;
    const list = (query: string): Promise<Answer> => call('GET', `/api/orgs/${org.id}/dashboards${query}`, { key });
    const create = (name: string, category?: string): Promise<Answer> =>
      call('POST', `/api/orgs/${org.id}/dashboards?name=${encodeURIComponent(name)}`, { key, body: { ...minimalSpec(), ...(category ? { category } : {}) } });
    for (const [name, category] of [['Checkout latency', 'Services'], ['Cart', 'Services'], ['Node disks', undefined], ['Checkout errors', undefined]] as const) {
      expect((await create(name, category)).status).toBe(201);
    }
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 4, offset: 0, limit: 50 });
    expect((all.body.items as Array<{ name: string }>).map((d) => d.name)).toEqual(['Cart', 'Checkout errors', 'Checkout latency', 'Node disks']);
    expect(all.body).not.toHaveProperty('nextOffset');
    const page = await list('?limit=2&offset=1');
    expect((page.body.items as Array<{ name: string }>).map((d) => d.name)).toEqual(['Checkout errors', 'Checkout latency']);
    expect(page.body).toMatchObject({ total: 4, nextOffset: 3 });
    const byName = await list('?name=checkout');
    expect((byName.body.items as Array<{ name: string }>).map((d) => d.name)).toEqual(['Checkout errors', 'Checkout latency']);
    const custom = await list('?category=custom');
    expect((custom.body.items as Array<{ name: string; category: string }>).map((d) => [d.name, d.category])).toEqual([
      ['Checkout errors', 'Custom'],
      ['Node disks', 'Custom'],
    ]);
    const both = await list('?category=Services&name=cart');
    expect(both.body).toMatchObject({ total: 1 });
    expect((both.body.items as Array<Record<string, unknown>>)[0]).not.toHaveProperty('spec');
    for (const bad of ['?limit=0', '?limit=501', '?offset=-1', '?limit=abc']) expect((await list(bad)).status, bad).toBe(400);
  });

  it('validates without storing: 200 with valid, errors and warnings', async () => {
    const good = await call('POST', `${base()}/validate`, { body: minimalSpec() });
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ valid: true, errors: [], warnings: [] });
    const spec = { ...minimalSpec(), duration: 'forever', libraryRef: 'x' };
    const bad = await call('POST', `${base()}/validate`, { body: spec });
    expect(bad.status).toBe(200);
    expect(bad.body.valid).toBe(false);
    expect((bad.body.errors as Issue[]).map((e) => e.rule).sort()).toEqual(['invalid-duration', 'library-ref']);
    const forReplace = await call('POST', `${base()}/validate?mode=replace`, { body: spec });
    expect((forReplace.body.errors as Issue[]).map((e) => e.rule)).toEqual(['invalid-duration']);
    expect((forReplace.body.warnings as Issue[]).map((e) => e.rule)).toEqual(['library-ref']);
    expect((await call('POST', `${base()}/validate?mode=upsert`, { body: spec })).status).toBe(400);
    const before = (await call('GET', base())).body.total;
    await call('POST', `${base()}/validate`, { body: minimalSpec() });
    expect((await call('GET', base())).body.total).toBe(before);
  });

  it('answers malformed JSON with 400 INVALID_JSON on every endpoint that takes a body', async () => {
    await call('POST', `${base()}?name=json&id=json-target`, { body: minimalSpec() });
    const cases: Array<[string, string]> = [
      ['POST', `${base()}?name=broken`],
      ['PUT', `${base()}/json-target`],
      ['PUT', `${base()}?id=json-target`],
      ['POST', `${base()}/validate`],
    ];
    for (const [method, url] of cases) {
      const res = await call(method, url, { raw: '{"duration": "1h",' });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    }
  });

  it('reports a body that is not JSON before anything else about the request', async () => {
    // Each request has a second fault (a bad id, a bad mode, no id, an org the key may not
    // reach); the body is what the caller hears about first.
    const cases: Array<[string, string]> = [
      ['POST', base()],
      ['POST', `${base()}?id=${encodeURIComponent('a/b')}`],
      ['POST', `${base()}?name=%20`],
      ['POST', `${base()}/validate?mode=upsert`],
      ['PUT', base()],
      ['PUT', `/api/orgs/${otherOrg}/dashboards/anything`],
    ];
    for (const [method, url] of cases) {
      const res = await call(method, url, { raw: 'not json at all' });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body, `${method} ${url}`).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    }
  });

  it('answers 401 without a key on every dashboard endpoint', async () => {
    const cases: Array<[string, string]> = [
      ['GET', base()],
      ['POST', base()],
      ['PUT', `${base()}/x`],
      ['GET', `${base()}/x`],
      ['DELETE', `${base()}/x`],
      ['POST', `${base()}/validate`],
    ];
    for (const [method, url] of cases) {
      const res = await call(method, url, { key: null, body: ['POST', 'PUT'].includes(method) ? minimalSpec() : undefined });
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });

  it('answers 403 when the key belongs to another org, and leaves the dashboard alone', async () => {
    await call('POST', `${base()}?name=Mine&id=mine`, { body: minimalSpec() });
    const cases: Array<[string, string]> = [
      ['GET', base()],
      ['POST', `${base()}?name=intruder`],
      ['PUT', `${base()}/mine`],
      ['GET', `${base()}/mine`],
      ['DELETE', `${base()}/mine`],
      ['POST', `${base()}/validate`],
    ];
    for (const [method, url] of cases) {
      const res = await call(method, url, { key: otherKey, body: ['POST', 'PUT'].includes(method) ? minimalSpec() : undefined });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect((await call('GET', `${base()}/mine`)).body.version).toBe(1);
    // The other org's own path works for its own key, and does not see this org's dashboards.
    const theirs = await call('GET', `/api/orgs/${otherOrg}/dashboards`, { key: otherKey });
    expect(theirs.status).toBe(200);
    expect((await call('GET', `/api/orgs/${otherOrg}/dashboards/mine`, { key: otherKey })).status).toBe(404);
  });

  it('lets the system key reach any existing org, and 404 for an org that does not exist', async () => {
    const res = await call('GET', `${base()}/mine`, { key: SYSTEM_KEY });
    expect(res.status).toBe(200);
    const created = await call('POST', `/api/orgs/${otherOrg}/dashboards?name=From%20system`, { key: SYSTEM_KEY, body: minimalSpec() });
    expect(created.status).toBe(201);
    const missing = await call('GET', '/api/orgs/no-such-org/dashboards', { key: SYSTEM_KEY });
    expect(missing.status).toBe(404);
  });

  it('creates the example dashboards through the API, without errors or warnings', async () => {
    const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(['all-panels.json', 'logs-explorer.json', 'service-overview.json', 'sluice-demo.json']);
    const org = await srv.admin.createOrg('examples-org');
    const key = (await srv.admin.createKey(org.id, 'examples')).key;
    for (const file of files) {
      const id = file.replace(/\.json$/, '');
      const spec = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>;
      const res = await call('POST', `/api/orgs/${org.id}/dashboards?id=${id}&name=${encodeURIComponent(id.replace(/-/g, ' '))}`, { key, body: spec });
      expect(res.status, `${file}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.warnings, file).toEqual([]);
      expect(res.body.spec).toEqual(spec);
    }
    // Every interlink of the examples leads to a dashboard that exists.
    const overview = (await call('GET', `/api/orgs/${org.id}/dashboards/service-overview`, { key })).body.spec as {
      panels: Record<string, { interlinks?: Array<{ targetDashboardId: string }> }>;
    };
    const targets = Object.values(overview.panels).flatMap((p) => (p.interlinks ?? []).map((l) => l.targetDashboardId));
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect((await call('GET', `/api/orgs/${org.id}/dashboards/${target}`, { key })).status).toBe(200);
    // The all-panels example holds one panel of every kind.
    const allPanels = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, 'all-panels.json'), 'utf8')) as { panels: Record<string, { kind: string }> };
    expect(new Set(Object.values(allPanels.panels).map((p) => p.kind)).size).toBe(10);
  });
});
