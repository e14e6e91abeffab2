import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { ERROR_STATUS } from '../../src/errors.js';
import type { RouteSpec, Router } from '../../src/http/router.js';
import { APP_PATHS } from '../../src/webApp/routes.js';
import { loadOpenApiDocument, openApiDocumentPath } from '../../src/routes/helpers/openapi.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC_PATH = path.join(ROOT, 'schemas', 'openapi.json');

interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> } | { $ref: string }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  security: Array<Record<string, string[]>>;
  components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>; schemas: Record<string, unknown> };
}

const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8')) as OpenApiDocument;

/** openApiPath turns a router pattern (`/a/:id`) into an OpenAPI path template (`/a/{id}`). */
const openApiPath = (pattern: string): string => pattern.replace(/:([^/]+)/g, '{$1}');

/** refsIn lists every `$ref` value anywhere in a JSON value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

function resolvePointer(pointer: string): unknown {
  let node: unknown = doc;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(part in node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

describe('OpenAPI document', () => {
  let srv: TestServer;
  let routes: RouteSpec[];

  beforeAll(async () => {
    srv = await startTestServer();
    // The router is private to the HTTP server; element access reaches it without widening its API.
    routes = (srv.service.server['deps'] as { router: Router }).router.routes();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('parses as OpenAPI 3.1 and every $ref resolves', () => {
    expect(doc.openapi).toBe('3.1.0');
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) expect(resolvePointer(ref), ref).toBeDefined();
  });

  it('documents every registered route, with security matching its auth', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    // The web app's pages and files are not API: the document describes what clients call.
    const webPages = new Set([...APP_PATHS, '/assets/:file']);
    const isWebFile = (route: RouteSpec): boolean => route.auth === 'none' && /^\/[^/]+\.[a-z0-9]+$/i.test(route.path);
    for (const route of routes.filter((r) => !webPages.has(r.path) && !isWebFile(r))) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      const security = op.security ?? doc.security;
      if (route.path === '/metrics') {
        // Its key requirement is a deployment setting, so the document marks the key optional.
        expect(security).toContainEqual({});
      } else if (route.auth === 'none') {
        expect(security, route.path).toEqual([]);
      } else {
        expect(security.length, route.path).toBeGreaterThan(0);
        expect(security, route.path).not.toContainEqual({});
      }
    }
  });

  it('lists the five key places in the order the server checks them', () => {
    expect(doc.security.map((s) => Object.keys(s)[0])).toEqual(Object.keys(doc.components.securitySchemes));
    expect(Object.values(doc.components.securitySchemes)).toEqual([
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-svc-api-key' }),
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Api-Key' }),
      expect.objectContaining({ type: 'http', scheme: 'ApiKey' }),
      expect.objectContaining({ type: 'http', scheme: 'basic' }),
      expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'api_key' }),
    ]);
  });

  it('enumerates exactly the error codes the service answers with', () => {
    const codes = (doc.components.schemas.ErrorCode as { enum: string[] }).enum;
    expect([...codes].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it('is served without a key, byte for byte', async () => {
    const res = await fetch(`${srv.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(readFileSync(DOC_PATH, 'utf8'));
  });

  it('is read from schemas/ under the package root, and a missing file fails loudly', () => {
    expect(openApiDocumentPath()).toBe(DOC_PATH);
    expect(() => loadOpenApiDocument(path.join(ROOT, 'schemas', 'no-such-file.json'))).toThrow(/ENOENT/);
  });

  it('describes the bodies the service actually answers with', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'sluice-openapi' });
    // Each documented schema is reached by JSON pointer into the document, so the $refs inside it resolve.
    const pointerOf = (route: string, method: string, status: string): string =>
      `${route.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`;
    const conforms = (pointer: string, value: unknown): { ok: boolean; why: string } => {
      const validate = ajv.compile({ $ref: `sluice-openapi#/paths/${pointer}` });
      const ok = validate(value) === true;
      return { ok, why: ajv.errorsText(validate.errors) };
    };
    const check = (pointer: string, value: unknown, what: string): void => {
      const { ok, why } = conforms(pointer, value);
      expect(ok, `${what}: ${why}`).toBe(true);
    };
    // The schemas have teeth: a listing of the wrong shape is refused.
    expect(conforms(pointerOf('/api/v1/logs/tags', 'post', '200'), { data: [{}], truncated: 'no' }).ok).toBe(false);
    expect(conforms(pointerOf('/api/v1/metrics/metadata', 'post', '200'), { data: [{ metric: 'up' }], truncated: false }).ok).toBe(false);

    const nowMs = Date.now();
    const write = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
      body: encodeRemoteWriteBody({
        timeseries: [{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'api' }], samples: [{ value: 1, timestamp: nowMs }] }],
        metadata: [{ type: 'gauge', metricFamilyName: 'up', help: 'Target up.' }],
      }),
    });
    expect(write.status).toBe(204);
    const push = await fetch(`${srv.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
      body: JSON.stringify({ streams: [{ stream: { service_name: 'api', level: 'info' }, values: [[String(BigInt(nowMs) * 1_000_000n), 'hi']] }] }),
    });
    expect(push.status).toBe(204);

    const post = async (route: string, body: unknown): Promise<{ status: number; json: unknown }> => {
      const res = await fetch(`${srv.url}${route}`, {
        method: 'POST',
        headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    };
    const calls: Array<[string, unknown]> = [
      ['/api/v1/logs/tags', {}],
      ['/api/v1/logs/tagvalues', { key: 'service_name' }],
      ['/api/v1/logs/series', {}],
      ['/api/v1/metrics/tags', {}],
      ['/api/v1/metrics/tagvalues', { key: 'job' }],
      ['/api/v1/metrics/labelkeys', { metric: 'up' }],
      ['/api/v1/metrics/metadata', {}],
      ['/api/v1/metrics/discover', { key: 'job' }],
      ['/api/v1/promql/validate', { q: 'sum(up)' }],
      ['/api/v1/promql/validate', { q: 'sum(up' }],
      ['/api/v1/logql/validate', { q: '{service_name="api"}' }],
      ['/api/v1/logql/validate', { q: '{service_name="api"' }],
    ];
    for (const [route, body] of calls) {
      const { status, json } = await post(route, body);
      expect(status, route).toBe(200);
      expect((json as { data?: unknown[] }).data ?? json, route).not.toEqual([]);
      check(pointerOf(route, 'post', '200'), json, route);
    }
    const services = await fetch(`${srv.url}/api/v1/services`, { headers: { 'x-svc-api-key': srv.key } });
    check(pointerOf('/api/v1/services', 'get', '200'), await services.json(), 'services');
    const ping = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key } });
    check(pointerOf('/api/v1/ping', 'get', '200'), await ping.json(), 'ping');
    const ready = await fetch(`${srv.url}/readyz`);
    check(pointerOf('/readyz', 'get', '200'), await ready.json(), 'readyz');

    const errorSchema = ajv.compile({ $ref: 'sluice-openapi#/components/schemas/Error' });
    const badSelector = await post('/api/v1/logs/tags', { match: '{a=' });
    expect(badSelector.status).toBe(400);
    expect(errorSchema(badSelector.json), ajv.errorsText(errorSchema.errors)).toBe(true);
    expect(badSelector.json).toHaveProperty('position');
  });
});
