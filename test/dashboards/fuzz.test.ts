import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTED_ISSUES } from '../../src/dashboards/index.js';
import { packageRoot } from '../../src/packageRoot.js';
import { SeededRandom } from '../support/seededRandom.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { everyField, minimalSpec, type Json, type JsonObject } from './fixtures.js';

/**
 * A seeded property test of the dashboard endpoints: specs built from the examples and
 * fixtures are mutated (values of the wrong type, removed and extra fields, long strings,
 * query fragments, deep nesting, many copies of one element, broken JSON text) and sent to
 * validate and create on the real server. Whatever arrives, the answer is a 2xx or a 4xx in the
 * spec's JSON shape, within a bounded time, and the server still answers afterwards.
 * FUZZ_SEED and FUZZ_RUNS reproduce or widen a run, as in test/fuzz.
 */

const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const CASES = Number(process.env.FUZZ_RUNS ?? 150);
/** CASE_BOUND_MS is the wall time a single request may take: generous, since the machine may be busy. */
const CASE_BOUND_MS = 5_000;
const EXAMPLES_DIR = path.join(packageRoot(), 'examples', 'dashboards');

function seedSpecs(): Json[] {
  const examples = readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(EXAMPLES_DIR, f), 'utf8')) as Json);
  return [...examples, minimalSpec(), everyField()];
}

const QUERY_PARTS = [
  'sum(', 'rate(', 'http_requests_total', '{', '}', '[5m]', '[$__range]', '$job', '${job}', '${', '$', '"', "'", '`', '=~', '!=',
  '|=', '| json', '| logfmt', 'by (job)', ')', ',', 'offset 1h', '@ end()', 'count_over_time(', 'topk($k, ', '1e308', '-', '/', ' ',
  '\\', '\u0000', '😀', 'histogram_quantile(0.9, ', 'label_replace(', '[1m:10s]', 'or', 'unless', 'bool', '==',
];

/** randomScalar is a value of any JSON type, favouring the edges: empty, huge, negative, odd characters. */
function randomScalar(r: SeededRandom): Json {
  switch (r.int(0, 9)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 23, 24, 25, 1.5, -0.5, 1e308, -1e308, 2 ** 53, Number.MAX_SAFE_INTEGER + 2]);
    case 3:
      return r.int(-100, 100);
    case 4:
      return '';
    case 5:
      return r.text(r.int(1, 40), 'abcxyz_$0123{}[]"\\ .-/:é😀');
    case 6:
      return Array.from({ length: r.int(1, 12) }, () => r.pick(QUERY_PARTS)).join('');
    case 7:
      return r.pick(['1h', '0s', '-5m', '7d', '1h30m', 'forever', '99999999999999999999y', 'timeseries', 'log-events', 'metrics', 'logs']);
    case 8:
      return 'x'.repeat(r.int(1_000, 100_000));
    default:
      return r.chance(0.5) ? [] : {};
  }
}

/**
 * containers lists the objects and arrays in a value, so a mutation can pick any place. It stops
 * 40 levels down: below that is only what a nesting mutation built.
 */
function containers(value: Json, out: Array<JsonObject | Json[]> = [], depth = 0): Array<JsonObject | Json[]> {
  if (value === null || typeof value !== 'object' || depth > 40) return out;
  out.push(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) containers(child, out, depth + 1);
  return out;
}

function keysOf(node: JsonObject | Json[]): Array<string | number> {
  return Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
}

function setAt(node: JsonObject | Json[], key: string | number, value: Json): void {
  (node as Record<string | number, Json>)[key] = value;
}

function getAt(node: JsonObject | Json[], key: string | number): Json {
  return (node as Record<string | number, Json>)[key];
}

/** mutate changes one place in `spec` (in place) and describes what it did. */
function mutate(r: SeededRandom, spec: Json): string {
  const all = containers(spec);
  const node = r.pick(all);
  const keys = keysOf(node);
  const key = keys.length > 0 ? r.pick(keys) : Array.isArray(node) ? 0 : 'extra';
  switch (r.int(0, 7)) {
    case 0:
    case 1:
      setAt(node, key, randomScalar(r));
      return `set ${String(key)} to a random value`;
    case 2:
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete node[key];
      return `removed ${String(key)}`;
    case 3: {
      const extra = r.pick(['tittle', 'kind', 'id', 'queries', 'x', '', '__proto__', 'constructor', r.text(6, 'abcdef')]);
      setAt(node, Array.isArray(node) ? node.length : extra, randomScalar(r));
      return `added ${extra}`;
    }
    case 4: {
      // Deep nesting: arrays or objects hundreds to thousands of levels deep.
      let deep: Json = randomScalar(r);
      const depth = r.pick([50, 200, 500]);
      for (let d = 0; d < depth; d++) deep = r.chance(0.5) ? [deep] : { a: deep };
      setAt(node, key, deep);
      return `nested ${depth} levels at ${String(key)}`;
    }
    case 5: {
      // Many copies of one element: panels, cells, variables or queries by the thousand.
      const copies = r.pick([10, 200, 2_000]);
      const original = getAt(node, key);
      if (Array.isArray(node)) for (let c = 0; c < copies; c++) node.push(structuredClone(original));
      else for (let c = 0; c < copies; c++) node[`${String(key)}${c}`] = structuredClone(original);
      return `copied ${String(key)} ${copies} times`;
    }
    case 6: {
      // A value moved from another place: right shape, wrong place.
      const donor = r.pick(all);
      const donorKeys = keysOf(donor);
      if (donorKeys.length > 0) setAt(node, key, structuredClone(getAt(donor, r.pick(donorKeys))));
      return `moved a value to ${String(key)}`;
    }
    default:
      setAt(node, key, Array.from({ length: r.int(1, 30) }, () => r.pick(QUERY_PARTS)).join(''));
      return `query fragments at ${String(key)}`;
  }
}

/**
 * breakText damages the JSON text itself: cut short, a stray character, a different top-level
 * value, or nesting far deeper than an object built in the test could be serialised.
 */
function breakText(r: SeededRandom, text: string): string {
  switch (r.int(0, 4)) {
    case 4: {
      const depth = r.pick([10_000, 200_000]);
      const [open, close] = r.chance(0.5) ? ['[', ']'] : ['{"a":', '}'];
      const field = r.pick(['variables', 'sections', 'panels', 'smooth', 'unknown']);
      return `{"duration":"1h","panels":{},"sections":[],"${field}":${open.repeat(depth)}1${close.repeat(depth)}}`;
    }
    case 0:
      return text.slice(0, r.int(0, text.length - 1));
    case 1: {
      const at = r.int(0, text.length);
      return text.slice(0, at) + r.pick(['"', '{', ']', ',', '\u0000', '\\', 'NaN', '\ud800']) + text.slice(at);
    }
    case 2:
      return r.pick(['null', '[]', '42', '"spec"', 'true', '{}', '[' + text + ']']);
    default:
      return '\ufeff' + text;
  }
}

interface Answer {
  status: number;
  body: unknown;
  ms: number;
}

describe('dashboard endpoints under random specs', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  async function send(method: string, url: string, body?: string): Promise<Answer> {
    const started = performance.now();
    const res = await fetch(`${srv.url}${url}`, { method, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' }, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Left as text: the assertions below say it should have been JSON.
    }
    return { status: res.status, body: parsed, ms: performance.now() - started };
  }

  function expectIssueList(list: unknown, where: string): void {
    expect(Array.isArray(list), where).toBe(true);
    expect((list as unknown[]).length, where).toBeLessThanOrEqual(MAX_LISTED_ISSUES);
  }

  function expectWellFormed(answer: Answer, where: string): void {
    expect(answer.status, `${where}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBeLessThan(500);
    expect(answer.ms, where).toBeLessThan(CASE_BOUND_MS);
    const body = answer.body as Record<string, unknown>;
    expect(typeof body, where).toBe('object');
    if (answer.status >= 400) {
      expect(body, where).toMatchObject({ status: answer.status, code: expect.any(String), message: expect.any(String) });
      expect([400, 409, 413], where).toContain(answer.status);
    }
  }

  it(`answers ${CASES} mutated specs on validate and create with a 2xx or 4xx in time, and stays up`, async () => {
    const seeds = seedSpecs();
    const statuses = new Map<number, number>();
    for (let n = 0; n < CASES; n++) {
      const seed = BASE_SEED + n;
      const r = new SeededRandom(seed);
      const spec = structuredClone(r.pick(seeds));
      const steps: string[] = [];
      for (let m = r.int(1, 4); m > 0; m--) steps.push(mutate(r, spec));
      let text = JSON.stringify(spec);
      if (r.chance(0.1)) {
        text = breakText(r, text);
        steps.push('broke the JSON text');
      }
      const where = `seed ${seed} (${steps.join('; ')})`;

      const mode = r.pick(['create', 'replace']);
      const checked = await send('POST', `/api/orgs/${srv.orgId}/dashboards/validate?mode=${mode}`, text);
      expectWellFormed(checked, `validate, ${where}`);
      if (checked.status === 200) {
        const body = checked.body as Record<string, unknown>;
        expect(typeof body.valid, where).toBe('boolean');
        expectIssueList(body.errors, where);
        expectIssueList(body.warnings, where);
      }

      const created = await send('POST', `/api/orgs/${srv.orgId}/dashboards`, text);
      expectWellFormed(created, `create, ${where}`);
      statuses.set(created.status, (statuses.get(created.status) ?? 0) + 1);
      // Create and validate agree: a spec validate calls valid is stored, and only that one.
      if (checked.status === 200 && mode === 'create') {
        expect(created.status === 201, where).toBe((checked.body as { valid: boolean }).valid);
      }
      if (created.status === 400) expectIssueList((created.body as { details?: { errors?: unknown } }).details?.errors ?? [], where);
    }
    process.stdout.write(`create answers over ${CASES} cases from seed ${BASE_SEED}: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    // The run covered both outcomes, so the mutations neither always break nor never break a spec.
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);

    const health = await fetch(`${srv.url}/healthz`);
    expect(health.status).toBe(200);
    const list = await send('GET', `/api/orgs/${srv.orgId}/dashboards?limit=1`);
    expect(list.status).toBe(200);
    const fresh = await send('POST', `/api/orgs/${srv.orgId}/dashboards?name=After%20the%20run`, JSON.stringify(minimalSpec()));
    expect(fresh.status).toBe(201);
  }, 600_000);
});
