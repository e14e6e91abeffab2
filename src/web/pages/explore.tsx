import { useEffect, useState } from 'preact/hooks';
import type { DashboardSpec, Panel } from '../../dashboards/types.js';
import { QueryEditor, type Language } from '../editor/queryEditor.js';
import { RequestFailure } from '../lib/api.js';
import { dashboards, type DashboardSummary } from '../lib/dashboards.js';
import { colorAt, formatNumber } from '../lib/format.js';
import { readHistory, remember } from '../lib/history.js';
import { useQueryRun } from '../lib/queryRun.js';
import { updateParams, type Location } from '../lib/router.js';
import { align, HISTOGRAM_NOTE, type Series } from '../lib/series.js';
import { resolveRange, type TimeRange } from '../lib/time.js';
import { LogLines } from '../panels/logLines.js';
import { TimeChart } from '../panels/timeChart.js';
import { TimeRangePicker } from './timeRangePicker.js';

/** Explore runs one PromQL or LogQL query and shows it as a chart, a table or log lines. */
export function Explore({ org, location }: { org: string; location: Location }) {
  const params = location.params;
  const language: Language = params.get('lang') === 'logql' ? 'logql' : 'promql';
  const range: TimeRange = { from: params.get('from') ?? 'now-1h', to: params.get('to') ?? 'now' };
  const [text, setText] = useState(params.get('q') ?? '');
  const [kind, setKind] = useState<string>();
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const [history, setHistory] = useState(() => readHistory(language));
  const [submitted, setSubmitted] = useState<{ q: string; at: number } | undefined>(params.get('q') ? { q: params.get('q')!, at: 0 } : undefined);
  useEffect(() => {
    setHistory(readHistory(language));
    setText(params.get('q') ?? '');
    setSubmitted(params.get('q') ? { q: params.get('q')!, at: Date.now() } : undefined);
  }, [language]);

  const resolved = resolveRange(range) ?? { fromMs: Date.now() - 3_600_000, toMs: Date.now() };
  const raw = language === 'logql' && (kind === 'log' || (kind === undefined && /^\s*\{[^}]*\}[^()]*$/.test(submitted?.q ?? '')));
  const window = { s: String(resolved.fromMs), e: String(resolved.toMs), maxDataPoints: 500 };
  const run = useQueryRun(submitted ? [{ q: submitted.q, language, raw, limit: 500 }] : undefined, window, JSON.stringify([submitted, language, raw, range]));

  const execute = (): void => {
    const q = text.trim();
    if (q === '') return;
    setHistory(remember(language, q));
    setSubmitted({ q, at: Date.now() });
    updateParams((p) => p.set('q', q));
  };
  const switchTo = (next: Language): void =>
    updateParams((p) => {
      p.set('lang', next);
      p.delete('q');
    }, false);

  const series = run.store.list();
  return (
    <main class="page explore">
      <div class="toolbar">
        <h1>Explore</h1>
        <div role="tablist" aria-label="Query language" class="tabs">
          {(['promql', 'logql'] as const).map((l) => (
            <button key={l} role="tab" aria-selected={language === l} class={language === l ? 'tab active' : 'tab'} onClick={() => switchTo(l)}>
              {l === 'promql' ? 'PromQL (metrics)' : 'LogQL (logs)'}
            </button>
          ))}
        </div>
        <TimeRangePicker range={range} onChange={(r) => updateParams((p) => (p.set('from', r.from), p.set('to', r.to)), false)} />
      </div>
      <div class="explore-editor">
        <QueryEditor key={language} language={language} value={text} onChange={setText} onRun={execute} onKind={setKind} />
        <button class="primary" onClick={execute} aria-label="Run query (Ctrl+Enter)">
          Run
        </button>
      </div>
      <div class="explore-side">
        {history.length > 0 && (
          <details class="history">
            <summary>History ({history.length})</summary>
            <ul>
              {history.map((h) => (
                <li key={h}>
                  <button class="link" onClick={() => setText(h)}>
                    {h}
                  </button>
                </li>
              ))}
            </ul>
          </details>
        )}
        {submitted && <AddToDashboard org={org} query={submitted.q} language={language} raw={raw} />}
      </div>
      <section class="panel explore-result" data-state={run.error ? 'error' : run.running > 0 ? 'running' : 'done'} aria-live="polite">
        <header class="panel-head">
          {!raw && (
            <div role="tablist" aria-label="Result view" class="tabs">
              <button role="tab" aria-selected={view === 'chart'} class={view === 'chart' ? 'tab active' : 'tab'} onClick={() => setView('chart')}>
                Chart
              </button>
              <button role="tab" aria-selected={view === 'table'} class={view === 'table' ? 'tab active' : 'tab'} onClick={() => setView('table')}>
                Table
              </button>
            </div>
          )}
          <span class="progress" role="status">
            {run.running > 0 ? `${run.received} results…` : submitted ? `${run.received} results` : 'Write a query and press Run (Ctrl+Enter).'}
          </span>
        </header>
        {run.warning && <p class="warning">⚠ {run.warning}</p>}
        {run.store.histograms && !run.error && (
          <p class="note" role="note">
            {HISTOGRAM_NOTE}
          </p>
        )}
        {run.error ? (
          <p class="panel-error" role="alert">
            {run.error}
          </p>
        ) : raw ? (
          <LogLines lines={run.lines} />
        ) : view === 'table' ? (
          <ResultTable series={series} />
        ) : series.length > 0 ? (
          <div class="explore-chart">
            <TimeChart data={align(series)} series={series.map((s, i) => ({ label: s.label, color: colorAt(i) }))} formatValue={(v) => formatNumber(v)} />
          </div>
        ) : (
          submitted && run.running === 0 && <p class="empty">No data in this time range.</p>
        )}
      </section>
    </main>
  );
}

function ResultTable({ series }: { series: Series[] }) {
  return (
    <table class="result-table">
      <thead>
        <tr>
          <th scope="col">Series</th>
          <th scope="col">Last value</th>
          <th scope="col">Points</th>
        </tr>
      </thead>
      <tbody>
        {series.map((s) => {
          const last = [...s.points.entries()].sort((a, b) => b[0] - a[0])[0];
          return (
            <tr key={s.label}>
              <td>
                <code>{s.label}</code>
              </td>
              <td>{formatNumber(last?.[1])}</td>
              <td>{s.points.size}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** panelFor turns an Explore query into a panel: log lines for a raw LogQL query, else a time series. */
export function panelFor(id: string, query: string, language: Language, raw: boolean): Panel {
  if (raw) return { id, kind: 'log-events', title: 'Logs', queries: [], rawLogql: query, limit: 100 };
  return { id, kind: 'timeseries', title: query.slice(0, 60), queries: [{ query, ...(language === 'logql' ? { queryKind: 'loki' as const } : {}) }] };
}

/** addPanel appends a panel below the dashboard's first section, full width. */
export function addPanel(spec: DashboardSpec, panel: Panel): DashboardSpec {
  const sections = spec.sections.length > 0 ? spec.sections : [{ title: 'Panels', cells: [] }];
  const first = sections[0];
  const y = Math.max(0, ...first.cells.map((c) => c.y + c.h));
  return {
    ...spec,
    panels: { ...spec.panels, [panel.id]: panel },
    sections: [{ ...first, cells: [...first.cells, { i: panel.id, x: 0, y, w: 24, h: 8 }] }, ...sections.slice(1)],
  };
}

/** AddToDashboard puts the query on a chosen dashboard as a new panel. */
function AddToDashboard({ org, query, language, raw }: { org: string; query: string; language: Language; raw: boolean }) {
  const [list, setList] = useState<DashboardSummary[]>();
  const [target, setTarget] = useState('');
  const [message, setMessage] = useState<string>();
  useEffect(() => {
    dashboards.list(org).then(
      (p) => {
        setList(p.items);
        setTarget(p.items[0]?.id ?? '');
      },
      () => setList([]),
    );
  }, [org]);
  const add = async (): Promise<void> => {
    try {
      const record = await dashboards.get(org, target);
      const id = `explore-${Date.now().toString(36)}`;
      await dashboards.replace(org, target, addPanel(record.spec, panelFor(id, query, language, raw)), { version: record.version });
      setMessage(`Added to ${record.name}.`);
    } catch (err) {
      setMessage(err instanceof RequestFailure ? err.message : String(err));
    }
  };
  if (!list || list.length === 0) return null;
  return (
    <div class="add-to-dashboard">
      <label for="add-target">Add to dashboard</label>
      <select id="add-target" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
        {list.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
          </option>
        ))}
      </select>
      <button onClick={add}>Add panel</button>
      {message && <span role="status">{message}</span>}
    </div>
  );
}
