import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import type { DashboardSection, DashboardSpec } from '../../dashboards/types.js';
import type { EditDialog } from '../edit/dialogs.js';
import { clone, type Draft } from '../edit/draft.js';
import type { SpecChange } from '../edit/editMode.js';
import { lazyComponent } from '../lib/lazy.js';
import { RequestFailure } from '../lib/api.js';
import { dashboards, type DashboardRecord } from '../lib/dashboards.js';
import { markDashboardLoaded } from '../lib/marks.js';
import { linkClick, updateParams, type Location } from '../lib/router.js';
import { resolveRange, type TimeRange } from '../lib/time.js';
import { initialSelection, loadOptions, withFirstOptions, type Selection } from '../lib/variables.js';
import { PanelEnvContext, type PanelEnv } from '../panels/context.js';
import { PanelView } from '../panels/panelView.js';
import { TimeRangePicker } from './timeRangePicker.js';
import { VariablePicker } from './variablePicker.js';

/** REFRESH_CHOICES are the auto-refresh intervals; off by default. */
const REFRESH_CHOICES: Array<[string, number]> = [
  ['off', 0],
  ['10s', 10_000],
  ['30s', 30_000],
  ['1m', 60_000],
  ['5m', 300_000],
];

/** Edit mode's parts come in their own script, fetched when someone first presses Edit. */
const editMode = () => import('../edit/editMode.js');
const EditBar = lazyComponent(() => editMode().then((m) => m.EditBar));
const SectionEdit = lazyComponent(() => editMode().then((m) => m.SectionEdit), '');
const CellEdit = lazyComponent(() => editMode().then((m) => m.CellEdit), '');

/** MAX_DATA_POINTS bounds every panel's points per series: about one per pixel of a wide panel. */
const MAX_DATA_POINTS = 300;

/** rangeFrom reads ?from&to, else the dashboard's duration up to now. */
function rangeFrom(params: URLSearchParams, spec: DashboardSpec): TimeRange {
  const from = params.get('from');
  const to = params.get('to');
  if (from && to) return { from, to };
  return { from: `now-${spec.duration}`, to: 'now' };
}

/** DashboardView draws a stored dashboard: pickers, sections on the 24-column grid, every panel. */
export function DashboardView({ org, id, location }: { org: string; id: string; location: Location }) {
  const [record, setRecord] = useState<DashboardRecord>();
  const [error, setError] = useState<string>();
  const [loads, setLoads] = useState(0);
  // A layout effect: the spec (often already answered, see lib/early.ts) is taken before the
  // browser paints "Loading…", not a frame later, so the panels' queries leave sooner.
  useLayoutEffect(() => {
    setRecord(undefined);
    setError(undefined);
    (loads === 0 ? dashboards.open(org, id) : dashboards.get(org, id)).then(setRecord, (err: unknown) => setError(err instanceof RequestFailure ? err.message : String(err)));
  }, [org, id, loads]);
  if (error)
    return (
      <main class="page">
        <p class="panel-error" role="alert">
          {error}
        </p>
        <a href="/dashboards" onClick={linkClick}>
          Back to dashboards
        </a>
      </main>
    );
  if (!record) return <main class="page muted">Loading…</main>;
  markDashboardLoaded();
  return <LoadedDashboard key={`${record.id}@${record.version}`} org={org} record={record} location={location} onSaved={setRecord} onReload={() => setLoads((n) => n + 1)} />;
}

interface LoadedProps {
  org: string;
  record: DashboardRecord;
  location: Location;
  onSaved: (record: DashboardRecord) => void;
  onReload: () => void;
}

function LoadedDashboard({ org, record, location, onSaved, onReload }: LoadedProps) {
  const [draft, setDraft] = useState<Draft>();
  const [dialog, setDialog] = useState<EditDialog>();
  const spec = draft?.spec ?? record.spec;
  const change: SpecChange = (f) => setDraft((d) => (d ? { ...d, spec: f(d.spec) } : d));
  const variables = spec.variables ?? [];
  const params = location.params;
  const range = rangeFrom(params, spec);
  const chosen: Selection = useMemo(() => initialSelection(variables, params), [params.toString(), record.id]);
  const refreshMs = REFRESH_CHOICES.find(([name]) => name === params.get('refresh'))?.[1] ?? 0;
  const [tick, setTick] = useState(0);
  const [options, setOptions] = useState<Record<string, string[]>>({});
  const selection: Selection = useMemo(() => withFirstOptions(chosen, variables, options), [chosen, options]);

  useEffect(() => {
    if (refreshMs === 0) return;
    const timer = setInterval(() => setTick((t) => t + 1), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs]);

  const resolved = useMemo(() => resolveRange(range) ?? { fromMs: Date.now() - 3_600_000, toMs: Date.now() }, [range.from, range.to, tick]);

  useEffect(() => {
    let cancelled = false;
    for (const v of variables) {
      loadOptions(v, variables, selection, String(resolved.fromMs), String(resolved.toMs)).then(
        (values) => !cancelled && setOptions((o) => ({ ...o, [v.name]: values })),
        () => !cancelled && setOptions((o) => ({ ...o, [v.name]: [] })),
      );
    }
    return () => {
      cancelled = true;
    };
  }, [record.id, JSON.stringify(selection), resolved.fromMs, resolved.toMs]);

  const env: PanelEnv = {
    range,
    fromMs: resolved.fromMs,
    toMs: resolved.toMs,
    window: { s: String(resolved.fromMs), e: String(resolved.toMs), maxDataPoints: MAX_DATA_POINTS },
    refreshKey: String(tick),
    variables,
    selection,
    awaiting: variables.filter((v) => chosen[v.name] === undefined && !v.includeAll && options[v.name] === undefined).map((v) => v.name),
    smooth: spec.smooth ?? false,
    syncKey: spec.sharedCrosshair === false ? undefined : `dashboard-${record.id}`,
  };

  const setRange = (r: TimeRange): void =>
    updateParams((p) => {
      p.set('from', r.from);
      p.set('to', r.to);
    }, false);
  const setVariable = (name: string, values: string[]): void =>
    updateParams((p) => {
      p.delete(`var-${name}`);
      for (const v of values) p.append(`var-${name}`, v);
      if (values.length === 0) p.append(`var-${name}`, '');
    }, false);

  return (
    <main class="page dashboard" data-dashboard-id={record.id} data-editing={draft !== undefined}>
      <div class="toolbar">
        <h1>{draft?.name ?? record.name}</h1>
        {!draft && (
          <button class="edit-button" onClick={() => setDraft({ spec: clone(record.spec), name: record.name, version: record.version })}>
            Edit
          </button>
        )}
        <div class="toolbar-controls">
          {variables.map((v) => (
            <VariablePicker key={v.name} variable={v} options={options[v.name]} selected={selection[v.name] ?? []} onChange={(values) => setVariable(v.name, values)} />
          ))}
          <TimeRangePicker range={range} onChange={setRange} />
          <div class="picker">
            <label for="auto-refresh">Refresh</label>
            <select id="auto-refresh" value={params.get('refresh') ?? 'off'} onChange={(e) => updateParams((p) => (e.currentTarget.value === 'off' ? p.delete('refresh') : p.set('refresh', e.currentTarget.value)))}>
              {REFRESH_CHOICES.map(([name]) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <button onClick={() => setTick((t) => t + 1)} aria-label="Refresh now">
            ↻
          </button>
        </div>
      </div>
      {draft && (
        <EditBar
          org={org}
          record={record}
          draft={draft}
          setDraft={setDraft}
          dialog={dialog}
          setDialog={setDialog}
          onSaved={onSaved}
          onCancel={() => {
            setDraft(undefined);
            setDialog(undefined);
          }}
          onReload={onReload}
        />
      )}
      <PanelEnvContext.Provider value={env}>
        {spec.sections.map((section, i) => (
          <Section key={`${record.id}-${i}`} section={section} index={i} spec={spec} edit={draft ? { change, setDialog } : undefined} />
        ))}
      </PanelEnvContext.Provider>
    </main>
  );
}

interface SectionProps {
  section: DashboardSection;
  index: number;
  spec: DashboardSpec;
  /** edit is set in edit mode: the section and its cells get their controls. */
  edit?: { change: SpecChange; setDialog: (dialog: EditDialog) => void };
}

/** Section is one collapsible block of the 24-column grid. */
function Section({ section, index, spec, edit }: SectionProps) {
  const [collapsed, setCollapsed] = useState(section.defaultCollapsed ?? false);
  const rows = Math.max(1, ...section.cells.map((c) => c.y + c.h));
  // Without rowHeight the section fits the viewport's height, within readable bounds.
  const rowHeight = section.rowHeight ?? Math.max(24, Math.min(48, Math.floor((window.innerHeight - 160) / rows)));
  return (
    <section class="dash-section" data-collapsed={collapsed}>
      <h2>
        <button class="section-toggle" aria-expanded={!collapsed} onClick={() => setCollapsed(!collapsed)}>
          {collapsed ? '▸' : '▾'} {section.title}
        </button>
      </h2>
      {edit && <SectionEdit section={section} index={index} change={edit.change} setDialog={edit.setDialog} />}
      {!collapsed && (
        <div class="grid" style={{ gridTemplateRows: `repeat(${rows}, ${rowHeight}px)` }}>
          {section.cells.map((cell) => {
            const panel = spec.panels[cell.i];
            if (!panel) return null;
            return (
              <div key={cell.i} class="cell" data-cell={cell.i} data-x={cell.x} data-y={cell.y} data-w={cell.w} data-h={cell.h} style={{ gridColumn: `${cell.x + 1} / span ${cell.w}`, gridRow: `${cell.y + 1} / span ${cell.h}` }}>
                <PanelView panel={panel} />
                {edit && <CellEdit cell={cell} panel={panel} section={index} rowHeight={rowHeight} spec={spec} change={edit.change} setDialog={edit.setDialog} />}
              </div>
            );
          })}
        </div>
      )}
    </section>
  );
}
