/**
 * Specs for the dashboard tests. `everyField` sets every field of every object the spec
 * defines, each panel kind once and both variable source shapes, so a mutation test can walk
 * it and reach every field.
 */

import type { Json, JsonObject } from '../../bench/dashboards/manyPanels.js';

/** The large specs live beside the lint benchmark, which times them too; tests import them from here. */
export { manyPanelsSpec, type Json, type JsonObject } from '../../bench/dashboards/manyPanels.js';

export function everyField(): JsonObject {
  const common = (id: string, kind: string, queries: Json[] = [{ query: 'up' }]): JsonObject => ({
    id,
    kind,
    title: `${kind} panel`,
    queries,
    description: 'Help text in **markdown**.',
    interlinks: [
      {
        label: 'Details of {{job}}',
        targetDashboardId: 'details',
        requiredLabels: ['job'],
        paramMap: { service: 'job' },
        entityKind: 'service',
        keepTimeRange: true,
        group: 'Explore',
      },
    ],
  });
  return {
    schemaVersion: 2,
    category: 'Services',
    libraryRef: 'gallery/service-overview',
    duration: '24h',
    smooth: false,
    sharedCrosshair: true,
    variables: [
      {
        name: 'service',
        kind: 'query',
        source: { signal: 'metrics', metric: 'up', label: 'job', scope: 'namespace="$namespace"' },
        label: 'Service',
        multi: true,
        includeAll: true,
        regex: '^api-.*',
        sort: 'numerical-desc',
        defaultValue: ['api-gateway'],
      },
      {
        name: 'namespace',
        kind: 'query',
        source: { signal: 'logs', label: 'k8s_namespace_name', expr: '{cluster="prod"}' },
      },
    ],
    panels: {
      ts: {
        ...common('ts', 'timeseries', [
          {
            query: 'sum by (job) (rate(http_requests_total{job=~"$service"}[5m]))',
            name: '{{job}}',
            queryKind: 'prometheus',
            includePartialStep: true,
            color: '#1f77b4',
            formulaSource: 'A + B',
            hidden: false,
          },
        ]),
        yAxisLabel: 'Rate',
        xAxisLabel: 'Time',
        unit: 'req/s',
        variant: 'stacked-area',
        yMin: 0,
        yMax: 100,
        integerYMax: true,
        percentScale: false,
        highlightWhen: {
          query: 'sum by (deploy) (deploy_in_progress)',
          queryKind: 'prometheus',
          threshold: 0.5,
          colors: { canary: '#ff0000' },
          defaultColor: '#cccccc',
        },
        smooth: true,
      },
      st: { ...common('st', 'stat'), sparkline: true, sparklineColor: '#00ff00', calculation: 'mean', format: { unit: 'ms', decimalPlaces: 2 } },
      ga: { ...common('ga', 'gauge'), sparkline: false, sparklineColor: 'red', max: 100, format: { unit: '%', decimalPlaces: 0 } },
      sg: common('sg', 'service-gauges'),
      sm: common('sm', 'service-memory-bars'),
      ba: { ...common('ba', 'bar'), yAxisLabel: 'Count', xAxisLabel: 'Time', reducer: 'sum', unit: 'req', percentScale: true, color: 'blue' },
      pi: { ...common('pi', 'pie'), reducer: 'max' },
      la: {
        ...common('la', 'label'),
        reducer: 'min',
        timestampAge: true,
        sort: 'value-asc',
        format: { unit: 's', decimalPlaces: 1 },
        color: 'green',
        thresholds: [{ value: 0, color: 'red' }],
      },
      gr: { ...common('gr', 'service-graph', []), metric: 'errors', serviceName: '$service', maxHops: 3 },
      le: {
        ...common('le', 'log-events', []),
        distributionOnly: false,
        logqlState: {
          filters: [{ tag: 'service_name', op: '=~', value: '$service' }],
          groupBy: ['level'],
          window: '1m',
          aggregation: 'error_rate',
        },
        rawLogql: '{service_name=~"$service"} |= "error"',
        limit: 100,
        serviceName: 'api',
        level: 'error',
      },
    },
    sections: [
      {
        title: 'Main',
        rowHeight: 30,
        defaultCollapsed: false,
        cells: [
          { i: 'ts', x: 0, y: 0, w: 12, h: 8 },
          { i: 'st', x: 12, y: 0, w: 6, h: 4 },
          { i: 'ga', x: 18, y: 0, w: 6, h: 4 },
          { i: 'sg', x: 12, y: 4, w: 12, h: 4 },
          { i: 'sm', x: 0, y: 8, w: 12, h: 4 },
          { i: 'ba', x: 12, y: 8, w: 12, h: 4 },
        ],
      },
      {
        title: 'More',
        cells: [
          { i: 'pi', x: 0, y: 0, w: 8, h: 6 },
          { i: 'la', x: 8, y: 0, w: 8, h: 6 },
          { i: 'gr', x: 16, y: 0, w: 8, h: 6 },
          { i: 'le', x: 0, y: 6, w: 24, h: 10 },
        ],
      },
    ],
  };
}

/** minimalSpec is a small spec with no lint findings, the base the lint tests mutate. */
export function minimalSpec(): JsonObject {
  return {
    duration: '1h',
    variables: [{ name: 'job', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'job' } }],
    panels: {
      rate: { id: 'rate', kind: 'timeseries', title: 'Rate', queries: [{ query: 'sum(rate(http_requests_total{job="$job"}[5m]))' }] },
      logs: { id: 'logs', kind: 'log-events', title: 'Logs', queries: [], rawLogql: '{service_name="$job"}' },
    },
    sections: [
      {
        title: 'Main',
        cells: [
          { i: 'rate', x: 0, y: 0, w: 12, h: 6 },
          { i: 'logs', x: 12, y: 0, w: 12, h: 6 },
        ],
      },
    ],
  };
}

/** clone deep-copies a spec so a test can mutate it freely. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** at reads the value at a location inside a spec. */
export function at(root: Json, location: ReadonlyArray<string | number>): Json {
  let node: Json = root;
  for (const key of location) node = (node as Record<string, Json>)[key as string];
  return node;
}
