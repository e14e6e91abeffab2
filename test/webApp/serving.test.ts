import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The web app is served by the API's own front: the built files with their caching and
 * compression, index.html for the app's pages only, and the sign-in session that keeps the
 * key in an HttpOnly cookie the API accepts.
 */
describe('web app serving and session', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('serves index.html for app pages, uncached, and keeps JSON 404s elsewhere', async () => {
    for (const page of ['/', '/dashboards', '/dashboards/some-id', '/explore', '/signin']) {
      const res = await fetch(`${srv.url}${page}`);
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
    for (const path of ['/api/v1/nothing', '/prometheus/nothing', '/loki/nothing', '/mcp/nothing', '/dashboards/a/b', '/assets/missing.js']) {
      const res = await fetch(`${srv.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it('serves hashed assets immutable, brotli or gzip as the client accepts', async () => {
    const html = await (await fetch(`${srv.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const plain = await fetch(`${srv.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const body = await plain.text();
    // fetch decodes what it asked for, so each answer must give back the same script.
    for (const [accept, encoding] of [
      ['gzip, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
    ]) {
      const res = await fetch(`${srv.url}${script}`, { headers: { 'accept-encoding': accept } });
      expect(res.headers.get('content-encoding'), accept).toBe(encoding);
      expect(res.headers.get('vary')).toBe('accept-encoding');
      expect(await res.text()).toBe(body);
    }
  });

  it('answers HEAD on pages and files as GET without a body', async () => {
    const html = await (await fetch(`${srv.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    for (const path of ['/', '/dashboards/some-id', script!]) {
      const get = await fetch(`${srv.url}${path}`, { headers: { 'accept-encoding': 'br' } });
      const getBytes = (await get.arrayBuffer()).byteLength;
      const head = await fetch(`${srv.url}${path}`, { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
      expect(head.status, path).toBe(200);
      for (const name of ['content-type', 'cache-control', 'content-encoding']) expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
      expect(Number(head.headers.get('content-length')), path).toBe(Number(get.headers.get('content-length') ?? getBytes));
      expect(await head.text()).toBe('');
    }
    // Only the app's pages and files opt in: an API path still refuses HEAD, naming what it accepts.
    const api = await fetch(`${srv.url}/api/v1/session`, { method: 'HEAD' });
    expect(api.status).toBe(405);
    const missing = await fetch(`${srv.url}/assets/missing.js`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
    const wrong = await fetch(`${srv.url}/explore`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
  });

  it('signs in with a valid key into an HttpOnly cookie the API accepts, and signs out', async () => {
    const bad = await fetch(`${srv.url}/api/v1/session`, { method: 'POST', headers: { 'x-svc-api-key': 'slk_wrong' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();

    const res = await fetch(`${srv.url}/api/v1/session`, { method: 'POST', headers: { 'x-svc-api-key': srv.key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'org', org: srv.orgId });
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^api_key=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    const pair = cookie.split(';')[0];

    const who = await fetch(`${srv.url}/api/v1/session`, { headers: { cookie: pair } });
    expect(await who.json()).toMatchObject({ org: srv.orgId });
    const list = await fetch(`${srv.url}/api/orgs/${srv.orgId}/dashboards`, { headers: { cookie: pair } });
    expect(list.status).toBe(200);

    const out = await fetch(`${srv.url}/api/v1/session`, { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^api_key=; .*Max-Age=0/);
  });

  it('refuses to set a cookie from a cookie', async () => {
    const res = await fetch(`${srv.url}/api/v1/session`, { method: 'POST', headers: { cookie: `api_key=${srv.key}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('BAD_REQUEST');
  });
});
