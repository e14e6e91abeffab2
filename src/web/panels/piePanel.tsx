import type { PiePanel as PieSpec } from '../../dashboards/types.js';
import { colorAt, formatNumber } from '../lib/format.js';
import { reduce } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { interlinkChoices, seriesName, usePanelRun } from './usePanelRun.js';

/** slicePath draws one pie slice from angle a0 to a1 (radians, 0 at 12 o'clock). */
function slicePath(a0: number, a1: number): string {
  if (a1 - a0 >= 2 * Math.PI - 1e-9) return 'M50,5 A45,45 0 1 1 49.99,5 Z';
  const p = (a: number): string => `${(50 + 45 * Math.sin(a)).toFixed(2)},${(50 - 45 * Math.cos(a)).toFixed(2)}`;
  return `M50,50 L${p(a0)} A45,45 0 ${a1 - a0 > Math.PI ? 1 : 0} 1 ${p(a1)} Z`;
}

/** PiePanel draws one slice per series, each reduced to one number. */
export function PiePanel({ panel }: { panel: PieSpec }) {
  const { env, run, problem, queries } = usePanelRun(panel.queries);
  const series = run.store.list();
  const slices = series
    .map((s, i) => ({ name: seriesName(s, queries), value: reduce(s, panel.reducer ?? 'last') ?? 0, color: queries[s.query]?.color ?? colorAt(i) }))
    .filter((s) => s.value > 0);
  const total = slices.reduce((a, s) => a + s.value, 0);
  let angle = 0;
  return (
    <PanelFrame panel={panel} run={run} problem={problem} links={interlinkChoices(panel.interlinks, series, env)}>
      {slices.length === 0 && run.running === 0 ? (
        <p class="empty">No data in this time range.</p>
      ) : (
        <div class="pie">
          <svg viewBox="0 0 100 100" role="img" aria-label={panel.title}>
            {slices.map((s) => {
              const a0 = angle;
              angle += (s.value / total) * 2 * Math.PI;
              return (
                <path key={s.name} d={slicePath(a0, angle)} fill={s.color} stroke="var(--bg-panel)" stroke-width="0.5">
                  <title>{`${s.name}: ${formatNumber(s.value)} (${((100 * s.value) / total).toFixed(1)}%)`}</title>
                </path>
              );
            })}
          </svg>
          <ul class="pie-legend">
            {slices.map((s) => (
              <li key={s.name}>
                <span class="swatch" style={{ background: s.color }} />
                {s.name} <span class="muted">{((100 * s.value) / total).toFixed(1)}%</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </PanelFrame>
  );
}
