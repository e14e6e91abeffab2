import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { PANEL_KINDS, compileDashboardSchema, formatPath, loadDashboardSchema, type DashboardIssue } from '../../src/dashboards/index.js';
import { collectSchemaFacts } from '../../src/dashboards/schemaErrors.js';
import { at, clone, everyField, type Json, type JsonObject } from './fixtures.js';

const { schema } = loadDashboardSchema();
const check = compileDashboardSchema(schema);

type Location = Array<string | number>;

/** set replaces the value at a location (the location must exist up to its parent). */
function set(root: Json, location: Location, value: Json): void {
  const parent = at(root, location.slice(0, -1)) as Record<string, Json>;
  parent[location[location.length - 1] as string] = value;
}

function remove(root: Json, location: Location): void {
  const parent = at(root, location.slice(0, -1)) as Record<string, Json>;
  delete parent[location[location.length - 1] as string];
}

/** MAP_KEYS are objects whose keys are data (panel ids, label values), not field names. */
function isMap(location: Location): boolean {
  const last = location[location.length - 1];
  return (location.length === 1 && last === 'panels') || last === 'paramMap' || last === 'colors';
}

/** walk visits every value below the root with its location. */
function walk(node: Json, location: Location, visit: (location: Location, value: Json) => void): void {
  if (location.length > 0) visit(location, node);
  if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...location, i], visit));
  else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, [...location, k], visit);
}

function wrongTypeFor(value: Json): Json {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'seven';
  if (typeof value === 'boolean') return 'yes';
  if (Array.isArray(value)) return { not: 'an array' };
  return 'not an object';
}

function describeErrors(errors: DashboardIssue[]): string {
  return errors.map((e) => `${e.path}: ${e.message}`).join('\n');
}

describe('dashboard schema: the document itself', () => {
  it('is a draft-07 schema that a strict Ajv accepts', () => {
    const s = schema as Record<string, unknown>;
    expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new AjvModule.default({ discriminator: true, strict: true });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
  });

  it('closes every object with additionalProperties: false, and keeps maps open only to typed values', () => {
    const objects: string[] = [];
    const check = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.properties !== undefined) {
        objects.push(where);
        expect(n.additionalProperties, where).toBe(false);
      } else if (n.type === 'object' && n.additionalProperties !== undefined) {
        expect(typeof n.additionalProperties, where).toBe('object');
      }
      for (const [k, v] of Object.entries(n)) check(v, `${where}/${k}`);
    };
    check(schema, '#');
    // The spec, the ten panel kinds and twelve supporting objects (PanelQuery, PanelInterlink,
    // PanelHighlightWhen, NumberFormat, ColorStop, LogQueryBuilderState, LogFilter, section,
    // GridCell, DashboardVariable and the two variable source shapes).
    expect(objects.length).toBe(23);
  });

  it('tells panel kinds and variable sources apart by a discriminator', () => {
    const defs = (schema as { definitions: Record<string, { discriminator?: { propertyName: string }; oneOf?: unknown[] }> }).definitions;
    expect(defs.Panel.discriminator).toEqual({ propertyName: 'kind' });
    expect(defs.Panel.oneOf).toHaveLength(10);
    expect(defs.VariableQuerySource.discriminator).toEqual({ propertyName: 'signal' });
    expect(defs.VariableQuerySource.oneOf).toHaveLength(2);
    const facts = collectSchemaFacts(schema);
    expect(facts.tagValues.get('panel')).toEqual(PANEL_KINDS);
    expect(facts.tagValues.get('variable source')).toEqual(['metrics', 'logs']);
  });

  it('records the defaults the spec gives', () => {
    const defs = (schema as { definitions: Record<string, { properties: Record<string, { default?: unknown }> }> }).definitions;
    const root = (schema as { properties: Record<string, { default?: unknown }> }).properties;
    const expected: Array<[unknown, unknown]> = [
      [root.smooth.default, false],
      [root.sharedCrosshair.default, true],
      [root.schemaVersion.default, 2],
      [defs.TimeseriesPanel.properties.variant.default, 'line'],
      [defs.StatPanel.properties.calculation.default, 'last'],
      [defs.BarPanel.properties.reducer.default, 'last'],
      [defs.PiePanel.properties.reducer.default, 'last'],
      [defs.LabelPanel.properties.reducer.default, 'last'],
      [defs.LabelPanel.properties.sort.default, 'label'],
      [defs.ServiceGraphPanel.properties.metric.default, 'requests'],
      [defs.ServiceGraphPanel.properties.maxHops.default, 3],
      [defs.LogEventsPanel.properties.limit.default, 100],
      [defs.PanelQuery.properties.queryKind.default, 'prometheus'],
      [defs.PanelHighlightWhen.properties.threshold.default, 0.5],
      [defs.PanelHighlightWhen.properties.queryKind.default, 'prometheus'],
      [defs.PanelInterlink.properties.keepTimeRange.default, true],
      [defs.DashboardVariable.properties.sort.default, 'alphabetical'],
    ];
    for (const [actual, want] of expected) expect(actual).toEqual(want);
  });
});

describe('dashboard schema: accepting what the spec allows', () => {
  it('accepts a spec that sets every field of every object', () => {
    expect(describeErrors(check(everyField()))).toBe('');
  });

  it('accepts the smallest spec: duration, panels and sections only', () => {
    expect(check({ duration: '1h', panels: {}, sections: [] })).toEqual([]);
  });

  it('accepts every optional field being left out', () => {
    const full = everyField();
    const required: Record<string, string[]> = requiredByLocation(full);
    walk(full, [], (location) => {
      const parentKey = formatPath(location.slice(0, -1));
      const field = location[location.length - 1];
      if (typeof field !== 'string' || isMap(location.slice(0, -1)) || required[parentKey] === undefined) return;
      if (required[parentKey].includes(field)) return;
      const spec = clone(full);
      remove(spec, location);
      expect(describeErrors(check(spec)), `without ${formatPath(location)}`).toBe('');
    });
  });

  it('accepts the examples the spec tables give', () => {
    for (const duration of ['1h', '24h', '7d']) expect(check({ ...everyField(), duration })).toEqual([]);
    for (const unit of ['ms', '%', 'req/s']) {
      const spec = everyField();
      set(spec, ['panels', 'ts', 'unit'], unit);
      expect(check(spec)).toEqual([]);
    }
    const spec = everyField();
    set(spec, ['panels', 'ts', 'queries', 0, 'name'], '{{instance}}');
    set(spec, ['panels', 'gr', 'serviceName'], '$service');
    expect(check(spec)).toEqual([]);
  });

  it('accepts every value of every enum', () => {
    for (const { location, values } of ENUMS) {
      for (const value of values) {
        const spec = everyField();
        set(spec, location, value);
        expect(describeErrors(check(spec)), `${formatPath(location)} = ${String(value)}`).toBe('');
      }
    }
  });

  it('accepts fractional numbers where the spec says number', () => {
    const spec = everyField();
    set(spec, ['panels', 'ts', 'yMin'], -0.5);
    set(spec, ['panels', 'ts', 'highlightWhen', 'threshold'], 0.75);
    set(spec, ['panels', 'la', 'thresholds', 0, 'value'], 12.5);
    set(spec, ['sections', 0, 'rowHeight'], 22.5);
    expect(check(spec)).toEqual([]);
  });

  it('accepts the grid bounds: x 0-23, w 1-24', () => {
    for (const [x, w] of [
      [0, 1],
      [23, 1],
      [0, 24],
    ]) {
      const spec = everyField();
      set(spec, ['sections', 0, 'cells', 0, 'x'], x);
      set(spec, ['sections', 0, 'cells', 0, 'w'], w);
      expect(check(spec), `x=${x} w=${w}`).toEqual([]);
    }
  });
});

/** ENUMS lists every enum of the spec with its values, at one place in `everyField`. */
const ENUMS: Array<{ location: Location; values: Json[] }> = [
  { location: ['schemaVersion'], values: [2] },
  { location: ['panels', 'ts', 'variant'], values: ['line', 'bar', 'stacked-bar', 'normalized-bar', 'area', 'stacked-area'] },
  { location: ['panels', 'ts', 'queries', 0, 'queryKind'], values: ['prometheus', 'loki'] },
  { location: ['panels', 'ts', 'highlightWhen', 'queryKind'], values: ['prometheus', 'loki'] },
  { location: ['panels', 'st', 'calculation'], values: ['last', 'mean', 'max', 'min', 'sum'] },
  { location: ['panels', 'ba', 'reducer'], values: ['last', 'mean', 'max', 'min', 'sum'] },
  { location: ['panels', 'pi', 'reducer'], values: ['last', 'mean', 'max', 'min', 'sum'] },
  { location: ['panels', 'la', 'reducer'], values: ['last', 'mean', 'max', 'min', 'sum'] },
  { location: ['panels', 'la', 'sort'], values: ['label', 'value-asc', 'value-desc'] },
  { location: ['panels', 'gr', 'metric'], values: ['requests', 'errors', 'latency'] },
  { location: ['panels', 'le', 'logqlState', 'aggregation'], values: ['count', 'rate', 'error_rate'] },
  { location: ['panels', 'le', 'logqlState', 'filters', 0, 'op'], values: ['=', '!=', '=~', '!~'] },
  { location: ['variables', 0, 'kind'], values: ['query'] },
  { location: ['variables', 0, 'sort'], values: ['alphabetical', 'alphabetical-desc', 'numerical', 'numerical-desc'] },
];

/** REQUIRED lists the required fields of each object, by the spec's tables. */
const REQUIRED_BY_KIND = {
  dashboard: ['duration', 'panels', 'sections'],
  panel: ['id', 'kind', 'title', 'queries'],
  query: ['query'],
  interlink: ['label', 'targetDashboardId', 'requiredLabels', 'paramMap'],
  highlight: ['query'],
  format: [],
  colorStop: ['value', 'color'],
  builder: ['filters', 'groupBy', 'window'],
  filter: ['tag', 'op', 'value'],
  section: ['title', 'cells'],
  cell: ['i', 'x', 'y', 'w', 'h'],
  variable: ['name', 'kind', 'source'],
  metricsSource: ['signal', 'metric', 'label'],
  logsSource: ['signal', 'label'],
} as const;

/** requiredByLocation maps the path of every object in `everyField` to its required fields. */
function requiredByLocation(spec: JsonObject): Record<string, string[]> {
  const out: Record<string, string[]> = { $: [...REQUIRED_BY_KIND.dashboard] };
  const put = (location: Location, kind: keyof typeof REQUIRED_BY_KIND): void => {
    out[formatPath(location)] = [...REQUIRED_BY_KIND[kind]];
  };
  for (const [id, panel] of Object.entries(spec.panels as Record<string, JsonObject>)) {
    put(['panels', id], 'panel');
    (panel.queries as Json[]).forEach((_q, n) => put(['panels', id, 'queries', n], 'query'));
    (panel.interlinks as Json[]).forEach((_l, n) => put(['panels', id, 'interlinks', n], 'interlink'));
    if (panel.highlightWhen) put(['panels', id, 'highlightWhen'], 'highlight');
    if (panel.format) put(['panels', id, 'format'], 'format');
    if (panel.thresholds) (panel.thresholds as Json[]).forEach((_t, n) => put(['panels', id, 'thresholds', n], 'colorStop'));
    if (panel.logqlState) {
      put(['panels', id, 'logqlState'], 'builder');
      put(['panels', id, 'logqlState', 'filters', 0], 'filter');
    }
  }
  (spec.sections as JsonObject[]).forEach((section, s) => {
    put(['sections', s], 'section');
    (section.cells as Json[]).forEach((_c, c) => put(['sections', s, 'cells', c], 'cell'));
  });
  (spec.variables as JsonObject[]).forEach((variable, v) => {
    put(['variables', v], 'variable');
    put(['variables', v, 'source'], (variable.source as JsonObject).signal === 'metrics' ? 'metricsSource' : 'logsSource');
  });
  return out;
}

describe('dashboard schema: rejecting mutations, with the path named', () => {
  it('rejects an unknown field on every object, naming the field', () => {
    const full = everyField();
    const objects = Object.keys(requiredByLocation(full));
    expect(objects.length).toBeGreaterThan(30);
    let checked = 0;
    const visit = (location: Location): void => {
      const spec = clone(full);
      const target = location.length === 0 ? spec : (at(spec, location) as JsonObject);
      target.bogusField = 1;
      const errors = check(spec);
      const path = formatPath([...location, 'bogusField']);
      expect(errors, path).toHaveLength(1);
      expect(errors[0]).toMatchObject({ path, rule: 'schema/unknown-field' });
      expect(errors[0].message).toContain('"bogusField"');
      checked++;
    };
    visit([]);
    walk(full, [], (location, value) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isMap(location)) visit(location);
    });
    expect(checked).toBe(objects.length);
  });

  it('rejects a wrong type in every field, at that field', () => {
    const full = everyField();
    let checked = 0;
    walk(full, [], (location, value) => {
      const spec = clone(full);
      set(spec, location, wrongTypeFor(value));
      const errors = check(spec);
      const path = formatPath(location);
      expect(errors.length, `${path} = ${JSON.stringify(wrongTypeFor(value))}`).toBeGreaterThan(0);
      for (const e of errors) expect(e.path, describeErrors(errors)).toBe(path);
      expect(errors.some((e) => /^must be /.test(e.message)), describeErrors(errors)).toBe(true);
      checked++;
    });
    expect(checked).toBeGreaterThan(150);
  });

  it('rejects the removal of every required field, naming it', () => {
    const full = everyField();
    for (const [objectPath, fields] of Object.entries(requiredByLocation(full))) {
      for (const field of fields) {
        const spec = clone(full);
        const location = locationOf(spec, objectPath);
        remove(spec, [...location, field]);
        const errors = check(spec);
        const path = formatPath([...location, field]);
        expect(errors.map((e) => e.path), `${path} removed`).toEqual([path]);
        expect(errors[0].rule).toBe('schema/missing-field');
        expect(errors[0].message).toContain(`"${field}"`);
      }
    }
  });

  it('rejects a value outside every enum, listing the allowed values', () => {
    for (const { location, values } of ENUMS) {
      const spec = everyField();
      set(spec, location, typeof values[0] === 'number' ? 3 : 'not-a-value');
      const errors = check(spec);
      expect(errors.map((e) => e.path)).toEqual([formatPath(location)]);
      expect(errors[0].rule).toBe('schema/not-allowed');
      for (const v of values) expect(errors[0].message).toContain(JSON.stringify(v));
    }
  });

  it('suggests the intended value of a misspelled enum', () => {
    const spec = everyField();
    set(spec, ['panels', 'ts', 'variant'], 'stacked_area');
    expect(check(spec)[0].message).toContain('did you mean "stacked-area"?');
  });

  it('rejects grid values out of range, saying the bound', () => {
    const cases: Array<[string, Json, string]> = [
      ['x', -1, 'at least 0'],
      ['x', 24, 'at most 23'],
      ['w', 0, 'at least 1'],
      ['w', 25, 'at most 24'],
      ['y', -1, 'at least 0'],
      ['h', 0, 'at least 1'],
      ['x', 1.5, 'whole number'],
    ];
    for (const [field, value, wording] of cases) {
      const spec = everyField();
      set(spec, ['sections', 1, 'cells', 2, field], value);
      const errors = check(spec);
      expect(errors.map((e) => e.path), `${field}=${String(value)}`).toEqual([`$.sections[1].cells[2].${field}`]);
      expect(errors[0].message).toContain(wording);
    }
  });

  it('rejects other bounds: limit, maxHops, decimalPlaces, rowHeight, empty ids, hex colors, schemaVersion', () => {
    const cases: Array<[Location, Json]> = [
      [['panels', 'le', 'limit'], 0],
      [['panels', 'gr', 'maxHops'], 0],
      [['panels', 'st', 'format', 'decimalPlaces'], -1],
      [['sections', 0, 'rowHeight'], 0],
      [['panels', 'ts', 'id'], ''],
      [['panels', 'ts', 'queries', 0, 'color'], 'blue'],
      [['panels', 'ts', 'interlinks', 0, 'targetDashboardId'], ''],
      [['schemaVersion'], 1],
    ];
    for (const [location, value] of cases) {
      const spec = everyField();
      set(spec, location, value);
      expect(check(spec).map((e) => e.path), formatPath(location)).toEqual([formatPath(location)]);
    }
  });

  it('answers a wrong panel kind with one error that lists the ten kinds', () => {
    const spec = everyField();
    set(spec, ['panels', 'ts', 'kind'], 'timeserie');
    const errors = check(spec);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: '$.panels.ts.kind', pointer: '/panels/ts/kind', rule: 'schema/unknown-kind' });
    for (const kind of ['timeseries', 'stat', 'gauge', 'service-gauges', 'service-memory-bars', 'bar', 'pie', 'label', 'service-graph', 'log-events']) {
      expect(errors[0].message).toContain(kind);
    }
    expect(errors[0].message).toContain('did you mean "timeseries"?');
  });

  it('answers a missing panel kind with one error', () => {
    const spec = everyField();
    remove(spec, ['panels', 'st', 'kind']);
    const errors = check(spec);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: '$.panels.st.kind', rule: 'schema/missing-field' });
  });

  it('checks a panel only against its own kind: a field of another kind names the kinds that have it', () => {
    const spec = everyField();
    set(spec, ['panels', 'ts', 'sparkline'], true);
    const errors = check(spec);
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toBe('$.panels.ts.sparkline');
    expect(errors[0].message).toContain('only stat and gauge panels have it');
  });

  it('suggests the intended field of a misspelled one', () => {
    const spec = everyField();
    set(spec, ['panels', 'ts', 'tittle'], 'x');
    expect(check(spec)[0].message).toContain('did you mean "title"?');
  });

  it('answers a wrong variable source signal with one error', () => {
    const spec = everyField();
    set(spec, ['variables', 1, 'source', 'signal'], 'traces');
    const errors = check(spec);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: '$.variables[1].source.signal', rule: 'schema/unknown-kind' });
    expect(errors[0].message).toContain('metrics, logs');
  });

  it('checks each variable source shape by its signal', () => {
    const spec = everyField();
    // `scope` belongs to metrics sources only.
    set(spec, ['variables', 1, 'source', 'scope'], 'a="b"');
    expect(check(spec).map((e) => e.path)).toEqual(['$.variables[1].source.scope']);
  });

  it('quotes panel ids that are not identifiers in paths, and escapes pointers', () => {
    const spec = everyField();
    const panels = spec.panels as Record<string, JsonObject>;
    panels['cpu/mem usage'] = { ...panels.st, id: 'cpu/mem usage', calculation: 'median' };
    const errors = check(spec);
    expect(errors[0].path).toBe('$.panels["cpu/mem usage"].calculation');
    expect(errors[0].pointer).toBe('/panels/cpu~1mem usage/calculation');
  });

  it('rejects a body that is not an object at the root', () => {
    for (const body of [[], 'spec', 3, null]) {
      const errors = check(body);
      expect(errors).toHaveLength(1);
      expect(errors[0].path).toBe('$');
      expect(errors[0].message).toContain('must be an object');
    }
  });
});

/** locationOf turns a `formatPath` string of `everyField` back into a location. */
function locationOf(spec: JsonObject, path: string): Location {
  const out: Location = [];
  walk(spec, [], (location) => {
    if (out.length === 0 && formatPath(location) === path) out.push(...location);
  });
  return out;
}
