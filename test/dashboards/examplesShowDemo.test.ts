import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findVariableReferences } from '../../src/dashboards/variables.js';
import type { DashboardSpec, DashboardVariable, LogQueryBuilderState, Panel } from '../../src/dashboards/types.js';
import { Generator } from '../../src/gen/generator.js';
import { Sender, backfill } from '../../src/gen/sender.js';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * A newcomer who starts the demo and loads the example dashboards must see data in every
 * panel. This test does what a dashboard viewer would: it resolves each variable from the
 * variable's own source over the helper endpoints, substitutes the selection into every query
 * the panel draws, and runs it over the SSE query API against backfilled demo data.
 */

const EXAMPLES_DIR = path.join(packageRoot(), 'examples', 'dashboards');
const EXAMPLES = readdirSync(EXAMPLES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ id: f.replace(/\.json$/, ''), spec: JSON.parse(readFileSync(path.join(EXAMPLES_DIR, f), 'utf8')) as DashboardSpec }));

/** ALL is what the spec substitutes for a variable's All option. */
const ALL = '.+';

/** PanelQueryRun is one query a panel draws, with where it comes from for failure messages. */
interface PanelQueryRun {
  where: string;
  text: string;
  signal: 'metrics' | 'logs';
  /** interlinkLabels are labels every series must carry for the panel's interlinks to appear. */
  interlinkLabels: string[];
}

/** Selection is each variable's selected values, as a viewer opening the dashboard has them. */
type Selection = Map<string, string[]>;

function substitute(text: string, selection: Selection): string {
  let out = '';
  let last = 0;
  for (const ref of findVariableReferences(text)) {
    const values = selection.get(ref.name);
    if (values === undefined) throw new Error(`${text}: $${ref.name} has no selection`);
    out += text.slice(last, ref.start) + (values.length === 1 ? values[0] : `(${values.join('|')})`);
    last = ref.end;
  }
  return out + text.slice(last);
}

/** builderQuery writes a log builder state as the LogQL metric query the panel draws. */
function builderQuery(state: LogQueryBuilderState): string {
  const selector = `{${state.filters.map((f) => `${f.tag}${f.op}${JSON.stringify(f.value)}`).join(', ')}}`;
  const range = `${selector}[${state.window}]`;
  const inner = state.aggregation === 'rate' ? `rate(${range})` : `count_over_time(${range})`;
  if (state.aggregation === 'error_rate') throw new Error('error_rate builder states are not drawn by this test');
  return state.groupBy.length > 0 ? `sum by (${state.groupBy.join(', ')}) (${inner})` : `sum(${inner})`;
}

/** panelQueries lists what a panel draws: its queries (hidden ones too), highlightWhen, and log sources. */
function panelQueries(panel: Panel): PanelQueryRun[] {
  const runs: PanelQueryRun[] = [];
  const interlinkLabels = (panel.interlinks ?? []).flatMap((l) => l.requiredLabels);
  panel.queries.forEach((q, i) => {
    runs.push({ where: `${panel.id}.queries[${i}]`, text: q.query, signal: q.queryKind === 'loki' ? 'logs' : 'metrics', interlinkLabels });
  });
  if ('highlightWhen' in panel && panel.highlightWhen) {
    const h = panel.highlightWhen;
    runs.push({ where: `${panel.id}.highlightWhen`, text: h.query, signal: h.queryKind === 'loki' ? 'logs' : 'metrics', interlinkLabels: [] });
  }
  if (panel.kind === 'log-events') {
    if (panel.rawLogql !== undefined) runs.push({ where: `${panel.id}.rawLogql`, text: panel.rawLogql, signal: 'logs', interlinkLabels: [] });
    if (panel.logqlState !== undefined) runs.push({ where: `${panel.id}.logqlState`, text: builderQuery(panel.logqlState), signal: 'logs', interlinkLabels: [] });
  }
  return runs;
}

function sortOptions(options: string[], sort: DashboardVariable['sort']): string[] {
  const sorted = [...options];
  if (sort === 'numerical' || sort === 'numerical-desc') sorted.sort((a, b) => Number(a) - Number(b));
  else sorted.sort();
  return sort === 'alphabetical-desc' || sort === 'numerical-desc' ? sorted.reverse() : sorted;
}

describe('the example dashboards over the demo data', () => {
  let srv: TestServer;

  const post = async (route: string, body: unknown): Promise<Response> =>
    fetch(`${srv.url}${route}`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });

  /** variableOptions asks the helper endpoints for the values the variable's source yields. */
  const variableOptions = async (variable: DashboardVariable, selection: Selection): Promise<string[]> => {
    const source = variable.source;
    const window = { s: 'now-1h', e: 'now' };
    const res =
      source.signal === 'metrics'
        ? await post('/api/v1/metrics/tagvalues', { ...window, key: source.label, match: `${source.metric}{${source.scope === undefined ? '' : substitute(source.scope, selection)}}` })
        : await post('/api/v1/logs/tagvalues', { ...window, key: source.label, ...(source.expr === undefined ? {} : { match: substitute(source.expr, selection) }) });
    expect(res.status, `options of $${variable.name}`).toBe(200);
    const values = ((await res.json()) as { data: string[] }).data;
    const shown = variable.regex === undefined ? values : values.filter((v) => new RegExp(variable.regex!).test(v));
    return sortOptions(shown, variable.sort);
  };

  /**
   * select resolves the variables in order, as a viewer's picker does: each source is scoped
   * by the variables before it. A default must be an option the source yields (or All).
   */
  const select = async (spec: DashboardSpec): Promise<Selection> => {
    const selection: Selection = new Map();
    for (const variable of spec.variables ?? []) {
      const options = await variableOptions(variable, selection);
      expect(options.length, `$${variable.name} offers no options`).toBeGreaterThan(0);
      const chosen = variable.defaultValue ?? [options[0]];
      for (const value of chosen) {
        const isAll = value === ALL && variable.includeAll === true;
        expect(isAll || options.includes(value), `default ${JSON.stringify(value)} of $${variable.name} is not among its options ${JSON.stringify(options)}`).toBe(true);
      }
      selection.set(variable.name, chosen);
    }
    return selection;
  };

  /** run executes a query over the dashboard's window and returns its result events' tags. */
  const run = async (q: PanelQueryRun, text: string, duration: string): Promise<{ done: unknown; tags: Array<Record<string, string>> }> => {
    const res = await readSse(await query(srv.url, `/api/v1/${q.signal}/query`, srv.key, { q: text, s: `now-${duration}`, e: 'now', limit: 100 }));
    expect(res.status, `${q.where}: ${text}: ${JSON.stringify(res.body)}`).toBe(200);
    const results = res.events.filter((e) => e.type === 'result');
    return { done: res.events.at(-1), tags: results.map((e) => e.data.tags as Record<string, string>) };
  };

  beforeAll(async () => {
    srv = await startTestServer();
    const now = Date.now();
    // Half an hour is enough for every 5m rate and an incident of payments, and keeps the test fast.
    await backfill(new Generator({ seed: 42 }), new Sender(srv.url, srv.key), now - 30 * 60_000, now);
    for (const { id, spec } of EXAMPLES) {
      const res = await post(`/api/orgs/${srv.orgId}/dashboards?id=${id}&name=${id}`, spec);
      expect(res.status, id).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await srv.stop();
  });

  it('covers the four examples', () => {
    expect(EXAMPLES.map((e) => e.id)).toEqual(['all-panels', 'logs-explorer', 'service-overview', 'sluice-demo']);
  });

  for (const { id } of EXAMPLES) {
    it(`${id}: every panel query returns data for the default selection`, async () => {
      const stored = (await (await fetch(`${srv.url}/api/orgs/${srv.orgId}/dashboards/${id}`, { headers: { 'x-svc-api-key': srv.key } })).json()) as { spec: DashboardSpec };
      const spec = stored.spec;
      const selection = await select(spec);
      const empty: string[] = [];
      let ran = 0;
      for (const panel of Object.values(spec.panels)) {
        for (const q of panelQueries(panel)) {
          const text = substitute(q.text, selection);
          const { done, tags } = await run(q, text, spec.duration);
          expect(done, `${q.where}: ${text}`).toEqual({ type: 'done', data: { status: 'ok' } });
          ran++;
          if (tags.length === 0) empty.push(`${q.where}: ${text}`);
          for (const label of q.interlinkLabels) {
            expect(tags.every((t) => t[label] !== undefined), `${q.where}: interlinks need ${label} on every series`).toBe(true);
          }
        }
      }
      expect(ran).toBeGreaterThan(0);
      expect(empty, 'panel queries that returned nothing').toEqual([]);
    });
  }

  it('centres the service graph on a service the demo has', async () => {
    const res = await fetch(`${srv.url}/api/v1/services?s=now-1h`, { headers: { 'x-svc-api-key': srv.key } });
    const services = ((await res.json()) as { data: Array<{ name: string }> }).data.map((s) => s.name);
    let graphs = 0;
    for (const { spec } of EXAMPLES) {
      const selection = await select(spec);
      for (const panel of Object.values(spec.panels)) {
        if (panel.kind !== 'service-graph' || panel.serviceName === undefined) continue;
        graphs++;
        expect(services).toContain(substitute(panel.serviceName, selection));
      }
    }
    expect(graphs).toBeGreaterThan(0);
  });

  it('fills every interlink target variable with a value the target offers', async () => {
    const byId = new Map(EXAMPLES.map((e) => [e.id, e.spec]));
    let links = 0;
    for (const { spec } of EXAMPLES) {
      const selection = await select(spec);
      for (const panel of Object.values(spec.panels)) {
        for (const link of panel.interlinks ?? []) {
          const target = byId.get(link.targetDashboardId);
          expect(target, link.targetDashboardId).toBeDefined();
          const targetSelection = await select(target!);
          const q = panelQueries(panel)[0];
          const { tags } = await run(q, substitute(q.text, selection), spec.duration);
          for (const [variableName, label] of Object.entries(link.paramMap)) {
            const variable = target!.variables?.find((v) => v.name === variableName);
            expect(variable, `${link.targetDashboardId} has no $${variableName}`).toBeDefined();
            const options = await variableOptions(variable!, targetSelection);
            for (const t of tags) expect(options, `${panel.id} -> ${link.targetDashboardId}: $${variableName}`).toContain(t[label]);
            links++;
          }
        }
      }
    }
    expect(links).toBeGreaterThan(0);
  });
});
