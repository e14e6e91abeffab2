import type { GaugePanel as GaugeSpec, StatPanel as StatSpec } from '../../dashboards/types.js';
import { formatNumber } from '../lib/format.js';
import { reduce } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { Sparkline } from './sparkline.js';
import { usePanelRun } from './usePanelRun.js';

/** StatPanel reduces the first series with the panel's calculation (last by default). */
export function StatPanel({ panel }: { panel: StatSpec }) {
  const { run, problem } = usePanelRun(panel.queries);
  const first = run.store.list()[0];
  const value = first ? reduce(first, panel.calculation ?? 'last') : undefined;
  return (
    <PanelFrame panel={panel} run={run} problem={problem}>
      <div class="stat">
        <div class="stat-value" data-value={value ?? ''}>
          {formatNumber(value, panel.format)}
        </div>
        {panel.sparkline && <Sparkline series={first} color={panel.sparklineColor} />}
      </div>
    </PanelFrame>
  );
}

/** arcPath draws a 240° gauge arc from the start angle to `fraction` of the sweep. */
function arcPath(fraction: number): string {
  const start = (150 * Math.PI) / 180;
  const sweep = (240 * Math.PI) / 180;
  const end = start + sweep * Math.max(0, Math.min(1, fraction));
  const r = 40;
  const [x0, y0] = [50 + r * Math.cos(start), 50 + r * Math.sin(start)];
  const [x1, y1] = [50 + r * Math.cos(end), 50 + r * Math.sin(end)];
  const large = end - start > Math.PI ? 1 : 0;
  return `M${x0.toFixed(2)},${y0.toFixed(2)} A${r},${r} 0 ${large} 1 ${x1.toFixed(2)},${y1.toFixed(2)}`;
}

/** GaugePanel draws the last value as an arc; without max the arc scales to the series' own peak. */
export function GaugePanel({ panel }: { panel: GaugeSpec }) {
  const { run, problem } = usePanelRun(panel.queries);
  const first = run.store.list()[0];
  const value = first ? reduce(first, 'last') : undefined;
  const peak = first ? reduce(first, 'max') : undefined;
  const max = panel.max ?? (peak !== undefined && peak > 0 ? niceCeil(peak) : 1);
  const fraction = value === undefined ? 0 : value / max;
  const color = fraction > 0.9 ? '#d44a3a' : fraction > 0.75 ? '#e0b400' : '#56a64b';
  return (
    <PanelFrame panel={panel} run={run} problem={problem}>
      <div class="gauge">
        <svg viewBox="0 0 100 80" role="img" aria-label={`${panel.title}: ${formatNumber(value, panel.format)}`}>
          <path d={arcPath(1)} class="gauge-track" fill="none" stroke-width="10" stroke-linecap="round" />
          {value !== undefined && <path d={arcPath(fraction)} class="gauge-fill" fill="none" stroke={color} stroke-width="10" stroke-linecap="round" />}
          <text x="50" y="56" text-anchor="middle" class="gauge-text">
            {formatNumber(value, panel.format)}
          </text>
        </svg>
        {panel.sparkline && <Sparkline series={first} color={panel.sparklineColor} />}
      </div>
    </PanelFrame>
  );
}

/** niceCeil rounds up to 1, 2 or 5 times a power of ten, for an auto-scaled gauge. */
export function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
