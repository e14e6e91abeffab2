import { useContext } from 'preact/hooks';
import type { PanelInterlink, PanelQuery } from '../../dashboards/types.js';
import { legendName } from '../lib/format.js';
import { useQueryRun, type QuerySpec, type RunState } from '../lib/queryRun.js';
import type { Series } from '../lib/series.js';
import { fillQuery, PanelEnvContext, usesAwaited, type PanelEnv } from './context.js';
import type { InterlinkChoice } from './panelFrame.js';

export interface PanelRun {
  env: PanelEnv;
  run: RunState;
  problem: string | undefined;
  /** queries are the panel's queries in run order; series carry the index into it. */
  queries: PanelQuery[];
}

export function usePanelEnv(): PanelEnv {
  const env = useContext(PanelEnvContext);
  if (!env) throw new Error('panels draw inside a dashboard view');
  return env;
}

/**
 * usePanelRun fills the variables into a panel's queries (all of them, or the visible ones)
 * and streams them; `extra` queries (highlightWhen) run alongside, their series numbered after
 * the panel's own. A query that cannot be filled becomes the panel's in-place error.
 */
export function usePanelRun(queries: PanelQuery[], options: { includeHidden?: boolean; extra?: PanelQuery[] } = {}): PanelRun {
  const env = usePanelEnv();
  const chosen = options.includeHidden ? queries : queries.filter((q) => !q.hidden);
  let problem: string | undefined;
  let specs: QuerySpec[] | undefined;
  const all = [...chosen, ...(options.extra ?? [])];
  try {
    specs = all.map((q): QuerySpec => ({ q: fillQuery(q.query, env), language: q.queryKind === 'loki' ? 'logql' : 'promql' }));
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
    specs = undefined;
  }
  // A variable about to take its first option is not missing: the panel waits for it.
  const waiting = problem !== undefined && all.some((q) => usesAwaited(q.query, env));
  if (waiting) problem = undefined;
  const key = JSON.stringify([specs, env.window, env.refreshKey]);
  const run = useQueryRun(specs, env.window, key);
  return { env, run: waiting ? waitingRun(run) : run, problem, queries: chosen };
}

/** waitingRun is the state of a panel whose queries wait for a variable's options: running, nothing received. */
export function waitingRun(run: RunState): RunState {
  return { ...run, running: Math.max(run.running, 1), waiting: true };
}

/** seriesName is the legend text: the query's name template filled from the series' tags. */
export function seriesName(series: Series, queries: PanelQuery[]): string {
  return legendName(queries[series.query]?.name, series.tags, series.label || queries[series.query]?.query || '');
}

/**
 * interlinkChoices lists the links the panel's series allow: a series must carry every
 * required label; the target's variables are filled from the mapped labels, and the time
 * range comes along unless keepTimeRange is false.
 */
export function interlinkChoices(interlinks: PanelInterlink[] | undefined, series: Series[], env: PanelEnv): InterlinkChoice[] {
  if (!interlinks || interlinks.length === 0) return [];
  const out = new Map<string, InterlinkChoice>();
  for (const link of interlinks) {
    for (const s of series) {
      if (!link.requiredLabels.every((l) => s.tags[l] !== undefined)) continue;
      const params = new URLSearchParams();
      if (link.keepTimeRange !== false) {
        params.set('from', env.range.from);
        params.set('to', env.range.to);
      }
      for (const [variable, label] of Object.entries(link.paramMap)) {
        const value = s.tags[label];
        if (value !== undefined) params.append(`var-${variable}`, value);
      }
      const href = `/dashboards/${encodeURIComponent(link.targetDashboardId)}?${params}`;
      out.set(href, { label: legendName(link.label, s.tags, link.label), href, group: link.group ?? link.entityKind });
    }
  }
  return [...out.values()];
}
