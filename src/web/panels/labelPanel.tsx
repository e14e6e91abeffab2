import type { ColorStop, LabelPanel as LabelSpec } from '../../dashboards/types.js';
import { formatAge, formatNumber } from '../lib/format.js';
import { reduce } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { interlinkChoices, seriesName, usePanelRun } from './usePanelRun.js';

/** colorFor picks the highest stop at or below the value, else the static color. */
export function colorFor(value: number | undefined, thresholds: ColorStop[] | undefined, fallback: string | undefined): string | undefined {
  if (value === undefined || !thresholds || thresholds.length === 0) return fallback;
  let best: ColorStop | undefined;
  for (const stop of thresholds) if (stop.value <= value && (best === undefined || stop.value >= best.value)) best = stop;
  return best?.color ?? fallback;
}

/**
 * LabelPanel draws one card per series. With timestampAge the value is a Unix time in seconds
 * and the card shows how long ago it was; thresholds then apply to that age.
 */
export function LabelPanel({ panel }: { panel: LabelSpec }) {
  const { env, run, problem, queries } = usePanelRun(panel.queries);
  const series = run.store.list();
  const nowS = env.toMs / 1000;
  const cards = series.map((s) => {
    const raw = reduce(s, panel.reducer ?? 'last');
    const value = panel.timestampAge && raw !== undefined ? Math.max(0, nowS - raw) : raw;
    return { name: seriesName(s, queries), value };
  });
  const sort = panel.sort ?? 'label';
  cards.sort((a, b) => (sort === 'label' ? a.name.localeCompare(b.name) : sort === 'value-asc' ? (a.value ?? 0) - (b.value ?? 0) : (b.value ?? 0) - (a.value ?? 0)));
  return (
    <PanelFrame panel={panel} run={run} problem={problem} links={interlinkChoices(panel.interlinks, series, env)}>
      {cards.length === 0 && run.running === 0 ? (
        <p class="empty">No data in this time range.</p>
      ) : (
        <ul class="cards">
          {cards.map((c) => (
            <li class="card" key={c.name} style={{ borderColor: colorFor(c.value, panel.thresholds, panel.color) ?? 'var(--border)' }}>
              <span class="card-name">{c.name}</span>
              <strong class="card-value">{c.value === undefined ? '–' : panel.timestampAge ? `${formatAge(c.value)} ago` : formatNumber(c.value, panel.format)}</strong>
            </li>
          ))}
        </ul>
      )}
    </PanelFrame>
  );
}
