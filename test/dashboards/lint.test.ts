import { describe, expect, it } from 'vitest';
import { LINT_RULES, createDashboardValidator, findOverlaps, type DashboardIssue, type GridCell, type LintRuleId } from '../../src/dashboards/index.js';
import { SeededRandom } from '../support/seededRandom.js';
import { clone, everyField, minimalSpec, type JsonObject } from './fixtures.js';

const validator = createDashboardValidator();

/** findings runs the whole check and returns every finding, failing the test on a schema error. */
function findings(spec: unknown, mode: 'create' | 'replace' = 'create'): DashboardIssue[] {
  const result = validator.validate(spec, { mode });
  const all = [...result.errors, ...result.warnings];
  const shape = all.filter((i) => i.rule.startsWith('schema/'));
  expect(shape, JSON.stringify(shape)).toEqual([]);
  expect(result.valid).toBe(result.errors.length === 0);
  return all;
}

function ofRule(issues: DashboardIssue[], rule: LintRuleId): DashboardIssue[] {
  return issues.filter((i) => i.rule === rule);
}

type Spec = JsonObject & {
  panels: Record<string, JsonObject & { queries: JsonObject[] }>;
  sections: Array<JsonObject & { cells: JsonObject[] }>;
  variables: Array<JsonObject & { source: JsonObject }>;
};

function base(): Spec {
  return clone(minimalSpec()) as Spec;
}

describe('lint: the baseline', () => {
  it('finds nothing in the minimal spec', () => {
    expect(findings(base())).toEqual([]);
  });

  it('documents a severity for every rule it emits, and emits it at that severity', () => {
    const issues = findings(everyField());
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      const rule = LINT_RULES[issue.rule as LintRuleId];
      expect(rule, issue.rule).toBeDefined();
      if (issue.rule !== 'query-syntax') expect(issue.severity, issue.rule).toBe(rule.severity);
    }
  });
});

describe('lint rules', () => {
  it('panel-id-mismatch: a panel id differs from its key', () => {
    const spec = base();
    spec.panels.rate.id = 'rates';
    const [issue] = ofRule(findings(spec), 'panel-id-mismatch');
    expect(issue).toMatchObject({ severity: 'error', path: '$.panels.rate.id' });
    expect(issue.message).toContain('"rates"');
  });

  it('unknown-panel: a grid cell names no panel, with a suggestion', () => {
    const spec = base();
    spec.sections[0].cells[0].i = 'rat';
    const issues = findings(spec);
    const [issue] = ofRule(issues, 'unknown-panel');
    expect(issue).toMatchObject({ severity: 'error', path: '$.sections[0].cells[0].i' });
    expect(issue.message).toContain('did you mean "rate"?');
    // The panel the cell should have placed is now unplaced.
    expect(ofRule(issues, 'unplaced-panel').map((i) => i.path)).toEqual(['$.panels.rate']);
  });

  it('unplaced-panel: a panel in no section is a warning', () => {
    const spec = base();
    spec.sections[0].cells.pop();
    const issues = findings(spec);
    expect(ofRule(issues, 'unplaced-panel')).toEqual([
      expect.objectContaining({ severity: 'warning', path: '$.panels.logs', pointer: '/panels/logs' }),
    ]);
    expect(validator.validate(spec, { mode: 'create' }).valid).toBe(true);
  });

  it('duplicate-placement: a panel placed twice, across sections too', () => {
    const spec = base();
    spec.sections.push({ title: 'Again', cells: [{ i: 'rate', x: 0, y: 0, w: 6, h: 4 }] });
    const [issue] = ofRule(findings(spec), 'duplicate-placement');
    expect(issue).toMatchObject({ severity: 'warning', path: '$.sections[1].cells[0].i' });
    expect(issue.message).toContain('$.sections[0].cells[0]');
  });

  it('grid-overflow: x + w past 24 is an error; exactly 24 is fine', () => {
    const spec = base();
    spec.sections[0].cells[1].x = 14;
    const [issue] = ofRule(findings(spec), 'grid-overflow');
    expect(issue).toMatchObject({ severity: 'error', path: '$.sections[0].cells[1]' });
    expect(issue.message).toContain('26');
    spec.sections[0].cells[1].x = 12;
    expect(ofRule(findings(spec), 'grid-overflow')).toEqual([]);
  });

  it('cell-overlap: overlapping cells in one section; touching cells and other sections do not count', () => {
    const spec = base();
    spec.sections[0].cells[1] = { i: 'logs', x: 11, y: 5, w: 12, h: 6 };
    const [issue] = ofRule(findings(spec), 'cell-overlap');
    expect(issue).toMatchObject({ severity: 'warning', path: '$.sections[0].cells[1]' });
    expect(issue.message).toContain('"rate"');
    spec.sections[0].cells[1] = { i: 'logs', x: 0, y: 6, w: 24, h: 6 };
    expect(ofRule(findings(spec), 'cell-overlap')).toEqual([]);
    spec.sections[0].cells.pop();
    spec.sections.push({ title: 'Other', cells: [{ i: 'logs', x: 0, y: 0, w: 24, h: 6 }] });
    expect(ofRule(findings(spec), 'cell-overlap')).toEqual([]);
  });

  it('cell-overlap: one finding per cell, not per pair, even when every cell overlaps every other', () => {
    const spec = base();
    spec.sections[0].cells = [];
    for (let n = 0; n < 5; n++) spec.sections[0].cells.push({ i: n % 2 === 0 ? 'rate' : 'logs', x: 0, y: 0, w: 24, h: 4 });
    const overlaps = ofRule(findings(spec), 'cell-overlap');
    expect(overlaps.map((i) => i.path)).toEqual([1, 2, 3, 4].map((n) => `$.sections[0].cells[${n}]`));
  });

  it('cell-overlap: the sweep agrees with comparing every pair, on random layouts', () => {
    const overlap = (a: GridCell, b: GridCell): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    for (let seed = 1; seed <= 300; seed++) {
      const r = new SeededRandom(seed);
      const cells: GridCell[] = [];
      const count = r.int(0, 40);
      for (let n = 0; n < count; n++) cells.push({ i: `p${n}`, x: r.int(0, 23), y: r.int(0, 30), w: r.int(1, 24), h: r.int(1, 8) });
      const found = findOverlaps(cells);
      const reported = new Set(found.map((f) => f.index));
      for (const { index, other } of found) {
        expect(overlap(cells[index], cells[other]), `seed ${seed}: ${index} and ${other}`).toBe(true);
        expect(index, `seed ${seed}`).not.toBe(other);
      }
      // A cell is reported exactly when it overlaps a cell that starts above it, or on the same
      // row earlier in the list; so every overlapping pair has at least one of its cells reported.
      cells.forEach((cell, b) => {
        const above = cells.some((other, a) => a !== b && (other.y < cell.y || (other.y === cell.y && a < b)) && overlap(cell, other));
        expect(reported.has(b), `seed ${seed}: cell ${b}`).toBe(above);
      });
      expect(found.map((f) => f.index)).toEqual([...reported].sort((a, b) => a - b));
    }
  });

  it('query-syntax: a PromQL query that does not parse, with the position in the text as written', () => {
    const spec = base();
    spec.panels.rate.queries[0].query = 'sum(rate(http_requests_total{job="$job"}[5m])';
    const [issue] = ofRule(findings(spec), 'query-syntax');
    expect(issue).toMatchObject({ severity: 'error', path: '$.panels.rate.queries[0].query' });
    expect(issue.message).toMatch(/^query does not parse as PromQL: 1:\d+: parse error: /);
    expect(issue.position).toBeDefined();
  });

  it('query-syntax: positions stay true after ${var} substitution', () => {
    // The same mistake after a braced reference and after a literal of the same length must be
    // reported at the same place: substitution keeps offsets.
    const withVariable = 'rate(http_requests_total{job="${job}"}[5m] offset)';
    const withLiteral = 'rate(http_requests_total{job="abcdef"}[5m] offset)';
    const spec = base();
    spec.panels.rate.queries[0].query = withVariable;
    const [viaVariable] = ofRule(findings(spec), 'query-syntax');
    spec.panels.rate.queries[0].query = withLiteral;
    const [viaLiteral] = ofRule(findings(spec), 'query-syntax');
    expect(viaVariable.position).toEqual(viaLiteral.position);
    expect(viaVariable.message).toBe(viaLiteral.message);
    expect(viaVariable.position!.start).toBeGreaterThan(withVariable.indexOf('}"}'));
  });

  it('query-syntax: a type error counts too', () => {
    const spec = base();
    spec.panels.rate.queries[0].query = 'rate(http_requests_total{job="$job"})';
    const [issue] = ofRule(findings(spec), 'query-syntax');
    expect(issue.severity).toBe('error');
    expect(issue.message).toMatch(/^query is not valid PromQL: /);
  });

  it('query-syntax: LogQL by queryKind, for panel queries, highlightWhen, rawLogql and variable expr', () => {
    const spec = base();
    spec.panels.rate.queries[0] = { query: 'sum(count_over_time({service_name="$job"}[5m]))', queryKind: 'loki' };
    expect(ofRule(findings(spec), 'query-syntax')).toEqual([]);
    spec.panels.rate.highlightWhen = { query: 'sum(count_over_time({service_name="$job"} [5m]) > 0', queryKind: 'loki' };
    spec.panels.logs.rawLogql = '{service_name="$job"} |~ "unclosed';
    spec.variables.push({ name: 'pod', kind: 'query', source: { signal: 'logs', label: 'pod', expr: '{service_name=}' } });
    spec.panels.rate.queries.push({ query: 'count_over_time({service_name="$pod"}[1m])', queryKind: 'loki' });
    const paths = ofRule(findings(spec), 'query-syntax').map((i) => i.path);
    expect(paths.sort()).toEqual(['$.panels.logs.rawLogql', '$.panels.rate.highlightWhen.query', '$.variables[1].source.expr']);
  });

  it('query-syntax: a PromQL query in a loki panel query is checked as LogQL', () => {
    const spec = base();
    spec.panels.rate.queries[0].queryKind = 'loki';
    const [issue] = ofRule(findings(spec), 'query-syntax');
    expect(issue.message).toContain('LogQL');
  });

  it('query-syntax: a bare variable makes a failure only a warning', () => {
    const spec = base();
    spec.variables.push({ name: 'k', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'k' } });
    spec.panels.rate.queries[0].query = 'topk($k, rate(http_requests_total{job="$job"}[5m]))';
    const [issue] = ofRule(findings(spec), 'query-syntax');
    expect(issue.severity).toBe('warning');
    expect(issue.message).toContain('$k');
  });

  it('query-syntax: variables inside a range are durations', () => {
    const spec = base();
    spec.variables.push({ name: 'window', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'w' } });
    spec.panels.rate.queries[0].query = 'sum(rate(http_requests_total{job="$job"}[${window}]))';
    expect(ofRule(findings(spec), 'query-syntax')).toEqual([]);
  });

  it('query-syntax: a metrics variable source needs a metric name and matchers in scope', () => {
    const spec = base();
    spec.variables.push({ name: 'route', kind: 'query', source: { signal: 'metrics', metric: 'http requests', label: 'route' } });
    spec.variables.push({ name: 'code', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'code', scope: 'job="$job", route=' } });
    spec.panels.rate.queries[0].query = 'sum(rate(http_requests_total{job="$job", route="$route", code="$code"}[5m]))';
    const issues = ofRule(findings(spec), 'query-syntax');
    expect(issues.map((i) => i.path)).toEqual(['$.variables[1].source.metric', '$.variables[2].source.scope']);
    expect(issues[1].message).toContain('scope is not a valid list of label matchers');
    // The position points into the scope text, not into the wrapped query.
    expect(issues[1].position!.start).toBeLessThanOrEqual('job="$job", route='.length);
  });

  it('query-kind-mismatch: LogQL that returns lines where numbers are needed, and the reverse', () => {
    const spec = base();
    spec.panels.rate.queries[0] = { query: '{service_name="$job"} |= "error"', queryKind: 'loki' };
    spec.panels.logs.rawLogql = 'count_over_time({service_name="$job"}[5m])';
    const issues = ofRule(findings(spec), 'query-kind-mismatch');
    expect(issues.map((i) => [i.path, i.severity])).toEqual([
      ['$.panels.rate.queries[0].query', 'error'],
      ['$.panels.logs.rawLogql', 'error'],
    ]);
  });

  it('unknown-variable: $x and ${x} must name a variable, in every place a reference may stand', () => {
    const spec = base();
    spec.panels.rate.queries[0].query = 'sum(rate(http_requests_total{job="$jbo", env="${env}"}[5m]))';
    spec.panels.graph = { id: 'graph', kind: 'service-graph', title: 'G', queries: [], serviceName: '$svc' };
    spec.sections[0].cells.push({ i: 'graph', x: 0, y: 6, w: 24, h: 6 });
    spec.panels.logs.logqlState = { filters: [{ tag: 'pod', op: '=', value: '$pod' }], groupBy: [], window: '1m' };
    const issues = ofRule(findings(spec), 'unknown-variable');
    expect(issues.map((i) => i.path)).toEqual([
      '$.panels.rate.queries[0].query',
      '$.panels.rate.queries[0].query',
      '$.panels.logs.logqlState.filters[0].value',
      '$.panels.graph.serviceName',
    ]);
    expect(issues[0].message).toContain('did you mean $job?');
    expect(issues[1].message).toContain('$env');
  });

  it('unknown-variable: $1 and a regex anchor are not references', () => {
    const spec = base();
    spec.panels.rate.queries[0].query =
      'label_replace(rate(http_requests_total{job="$job", path=~"/api$"}[5m]), "svc", "$1", "job", "(.*)")';
    expect(ofRule(findings(spec), 'unknown-variable')).toEqual([]);
  });

  it('unused-variable: a variable no query uses; use by another variable counts, use by itself does not', () => {
    const spec = base();
    spec.variables.push({ name: 'region', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'region', scope: 'region!="$region"' } });
    expect(ofRule(findings(spec), 'unused-variable')).toEqual([
      expect.objectContaining({ severity: 'warning', path: '$.variables[1].name' }),
    ]);
    spec.variables[0].source = { signal: 'metrics', metric: 'up', label: 'job', scope: 'region="$region"' };
    expect(ofRule(findings(spec), 'unused-variable')).toEqual([]);
  });

  it('invalid-duration: duration and a log builder window must parse and be positive', () => {
    for (const duration of ['1h', '24h', '7d', '90m', '1h30m']) {
      expect(ofRule(findings({ ...base(), duration }), 'invalid-duration'), duration).toEqual([]);
    }
    for (const duration of ['1 hour', 'h', '0s', '-1h', '1.5h']) {
      const [issue] = ofRule(findings({ ...base(), duration }), 'invalid-duration');
      expect(issue, duration).toMatchObject({ severity: 'error', path: '$.duration' });
    }
    const spec = base();
    spec.panels.logs.logqlState = { filters: [], groupBy: [], window: 'soon' };
    expect(ofRule(findings(spec), 'invalid-duration').map((i) => i.path)).toEqual(['$.panels.logs.logqlState.window']);
  });

  it('invalid-variable-name: letters, digits and _, not starting with a digit', () => {
    for (const name of ['job', '_x', 'a1_B']) {
      const spec = base();
      spec.variables[0].name = name;
      spec.panels.rate.queries[0].query = `sum(rate(http_requests_total{job="$${name}"}[5m]))`;
      spec.panels.logs.rawLogql = `{service_name="$${name}"}`;
      expect(ofRule(findings(spec), 'invalid-variable-name'), name).toEqual([]);
    }
    for (const name of ['1job', 'job-name', 'jöb', '']) {
      const spec = base();
      spec.variables[0].name = name;
      const [issue] = ofRule(findings(spec), 'invalid-variable-name');
      expect(issue, name).toMatchObject({ severity: 'error', path: '$.variables[0].name' });
    }
  });

  it('duplicate-variable: a name defined twice', () => {
    const spec = base();
    spec.variables.push(clone(spec.variables[0]));
    const [issue] = ofRule(findings(spec), 'duplicate-variable');
    expect(issue).toMatchObject({ severity: 'error', path: '$.variables[1].name' });
  });

  it('variable-options: includeAll and several defaults without multi', () => {
    const spec = base();
    spec.variables[0].includeAll = true;
    spec.variables[0].defaultValue = ['a', 'b'];
    expect(ofRule(findings(spec), 'variable-options').map((i) => [i.path, i.severity])).toEqual([
      ['$.variables[0].includeAll', 'warning'],
      ['$.variables[0].defaultValue', 'warning'],
    ]);
    spec.variables[0].multi = true;
    expect(ofRule(findings(spec), 'variable-options')).toEqual([]);
  });

  it('log-events-source: a log-events panel needs rawLogql or logqlState', () => {
    const spec = base();
    delete spec.panels.logs.rawLogql;
    spec.panels.rate.queries[0].query = 'up{job="$job"}';
    const [issue] = ofRule(findings(spec), 'log-events-source');
    expect(issue).toMatchObject({ severity: 'error', path: '$.panels.logs' });
    spec.panels.logs.logqlState = { filters: [{ tag: 'service_name', op: '=', value: 'api' }], groupBy: [], window: '5m' };
    expect(ofRule(findings(spec), 'log-events-source')).toEqual([]);
  });

  it('deprecated-field: log-events serviceName and level', () => {
    const spec = base();
    spec.panels.logs.serviceName = 'api';
    spec.panels.logs.level = 'error';
    expect(ofRule(findings(spec), 'deprecated-field').map((i) => [i.path, i.severity])).toEqual([
      ['$.panels.logs.serviceName', 'warning'],
      ['$.panels.logs.level', 'warning'],
    ]);
  });

  it('ignored-queries and empty-queries: queries where none are used, none where they are needed', () => {
    const spec = base();
    spec.panels.logs.queries = [{ query: 'up' }];
    spec.panels.rate.queries = [];
    spec.panels.logs.rawLogql = '{service_name="$job"}';
    const issues = findings(spec);
    expect(ofRule(issues, 'ignored-queries').map((i) => i.path)).toEqual(['$.panels.logs.queries']);
    expect(ofRule(issues, 'empty-queries').map((i) => i.path)).toEqual(['$.panels.rate.queries']);
  });

  it('library-ref: refused on create, a warning on replace', () => {
    const spec = { ...base(), libraryRef: 'gallery/node' };
    const onCreate = validator.validate(spec, { mode: 'create' });
    expect(onCreate.valid).toBe(false);
    expect(onCreate.errors).toEqual([expect.objectContaining({ rule: 'library-ref', path: '$.libraryRef' })]);
    expect(onCreate.errors[0].message).toContain('must be deleted');
    const onReplace = validator.validate(spec, { mode: 'replace' });
    expect(onReplace.valid).toBe(true);
    expect(onReplace.warnings).toEqual([expect.objectContaining({ rule: 'library-ref', severity: 'warning' })]);
  });

  it('runs only after the schema passes', () => {
    const spec = base();
    spec.panels.rate.id = 'other';
    spec.panels.rate.bogus = true;
    const result = validator.validate(spec, { mode: 'create' });
    expect(result.errors.map((e) => e.rule)).toEqual(['schema/unknown-field']);
  });
});
