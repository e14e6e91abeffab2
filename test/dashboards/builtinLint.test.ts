import { describe, expect, it } from 'vitest';
import { createDashboardValidator, type DashboardDirectory, type DashboardIssue } from '../../src/dashboards/index.js';
import { clone, minimalSpec, type JsonObject } from './fixtures.js';

const validator = createDashboardValidator();

type Spec = JsonObject & {
  panels: Record<string, JsonObject & { queries: JsonObject[] }>;
  variables: Array<JsonObject & { source: JsonObject }>;
};

/** withQueries is the minimal spec with the rate panel running `queries` instead of its own. */
function withQueries(...queries: string[]): Spec {
  const spec = clone(minimalSpec()) as Spec;
  spec.panels.rate.queries = queries.map((query) => ({ query }));
  return spec;
}

function check(spec: unknown, dashboards?: DashboardDirectory): DashboardIssue[] {
  const result = validator.validate(spec, { mode: 'create', dashboards });
  return [...result.errors, ...result.warnings];
}

describe('lint: built-in variables', () => {
  it('accepts every built-in in every form, in ranges, offsets, arithmetic and labels', () => {
    const issues = check(
      withQueries(
        'sum(rate(http_requests_total{job="$job"}[$__rate_interval]))',
        'sum(increase(http_requests_total{job="$job"}[${__range}])) / $__range_s',
        'avg_over_time(up{job="$job"}[$__interval] offset $__interval)',
        'sum(count_over_time(up{job="$job"}[$__auto])) * ${__interval_ms} / $__rate_interval_ms + $__range_ms',
        'up{job="$job", from="${__from:date:iso}", to="${__to:date:seconds}"} > $__from - $__to',
      ),
    );
    expect(issues).toEqual([]);
  });

  it('accepts them in LogQL too', () => {
    const spec = withQueries('sum(count_over_time({service_name="$job"}[$__auto]))');
    spec.panels.rate.queries[0].queryKind = 'loki';
    expect(check(spec)).toEqual([]);
  });

  it('still reports a real syntax error around a built-in, as an error', () => {
    const [issue] = check(withQueries('rate(http_requests_total{job="$job"}[$__rate_interval]')).filter((i) => i.rule === 'query-syntax');
    expect(issue).toMatchObject({ severity: 'error', path: '$.panels.rate.queries[0].query' });
  });

  it('suggests the built-in a misspelt name was meant to be', () => {
    const [issue] = check(withQueries('rate(http_requests_total{job="$job"}[$__rate_intervall])')).filter((i) => i.rule === 'unknown-variable');
    expect(issue.severity).toBe('error');
    expect(issue.message).toContain('did you mean $__rate_interval?');
  });

  it('refuses a format it cannot render', () => {
    const issues = check(withQueries('up{job="$job", x="${__interval:csv}", y="${__from:date:YYYY}"}')).filter((i) => i.rule === 'variable-format');
    expect(issues.map((i) => i.message)).toEqual([expect.stringContaining('${__interval:csv}'), expect.stringContaining('${__from:date:YYYY}')]);
    expect(issues.every((i) => i.severity === 'error')).toBe(true);
  });

  it('keeps names starting with __ for the built-ins', () => {
    const spec = withQueries('rate(http_requests_total{job="$job"}[5m])');
    spec.variables.push({ name: '__interval', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'job' } });
    const [issue] = check(spec).filter((i) => i.rule === 'invalid-variable-name');
    expect(issue).toMatchObject({ severity: 'error', path: '$.variables[1].name' });
  });
});

describe('lint: interlink targets', () => {
  function linked(...targets: string[]): Spec {
    const spec = clone(minimalSpec()) as Spec;
    spec.panels.rate.interlinks = targets.map((targetDashboardId) => ({ label: 'Open', targetDashboardId, requiredLabels: ['job'], paramMap: { job: 'job' } }));
    return spec;
  }
  const directory: DashboardDirectory = { has: (id) => id === 'logs-explorer' };

  it('warns, with the path, about a target the org does not have; the spec stays valid', () => {
    const result = validator.validate(linked('logs-explorer', 'nowhere'), { mode: 'create', dashboards: directory });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        rule: 'unknown-interlink-target',
        severity: 'warning',
        path: '$.panels.rate.interlinks[1].targetDashboardId',
        pointer: '/panels/rate/interlinks/1/targetDashboardId',
        message: expect.stringContaining('"nowhere"'),
      }),
    ]);
  });

  it('finds nothing when every target exists, and checks nothing without a directory', () => {
    expect(check(linked('logs-explorer'), directory)).toEqual([]);
    expect(check(linked('nowhere'))).toEqual([]);
  });
});
