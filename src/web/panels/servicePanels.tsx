import type { PanelQuery, ServiceGaugesPanel as GaugesSpec, ServiceMemoryBarsPanel as MemorySpec } from '../../dashboards/types.js';
import { formatBytes, formatNumber } from '../lib/format.js';
import { reduce, type Series } from '../lib/series.js';
import { PanelFrame } from './panelFrame.js';
import { usePanelRun } from './usePanelRun.js';

/**
 * The service panels read a fixed set of queries, each grouped `by (service_name)`, found by
 * their `name` (or, without names, by position), as docs/webUi.md documents:
 *
 * - service-gauges: `cpu` (cores in use), `memory` (bytes resident), `pods` (running replicas)
 * - service-memory-bars: `used` (bytes resident) and `limit` (bytes allowed)
 */

/** roleIndex finds the query playing `role`: by name, else at `position`. */
function roleIndex(queries: PanelQuery[], role: string, position: number): number {
  const named = queries.findIndex((q) => q.name === role);
  return named >= 0 ? named : queries[position] && queries[position].name === undefined ? position : -1;
}

/** byService maps service_name to the last value of each role's series. */
function byService(series: Series[], queries: PanelQuery[], roles: string[]): Map<string, Record<string, number | undefined>> {
  const out = new Map<string, Record<string, number | undefined>>();
  roles.forEach((role, position) => {
    const index = roleIndex(queries, role, position);
    for (const s of series.filter((x) => x.query === index)) {
      const service = s.tags.service_name ?? s.tags.service ?? s.label;
      const row = out.get(service) ?? {};
      row[role] = reduce(s, 'last');
      out.set(service, row);
    }
  });
  return new Map([...out.entries()].sort((a, b) => a[0].localeCompare(b[0])));
}

function MiniGauge({ label, fraction, text }: { label: string; fraction: number | undefined; text: string }) {
  // Scaled to the busiest service, so the arc compares services rather than judging health.
  const f = Math.max(0, Math.min(1, fraction ?? 0));
  const color = '#3274d9';
  return (
    <div class="mini-gauge" role="img" aria-label={`${label} ${text}`}>
      <svg viewBox="0 0 40 24">
        <path d="M4,20 A16,16 0 0 1 36,20" fill="none" class="gauge-track" stroke-width="5" />
        {fraction !== undefined && <path d="M4,20 A16,16 0 0 1 36,20" fill="none" stroke={color} stroke-width="5" pathLength="1" stroke-dasharray={`${f} 1`} />}
      </svg>
      <div class="mini-gauge-text">{text}</div>
      <div class="muted">{label}</div>
    </div>
  );
}

/** ServiceGaugesPanel shows CPU, memory and pods per service, each gauge scaled to the busiest service. */
export function ServiceGaugesPanel({ panel }: { panel: GaugesSpec }) {
  const { run, problem, queries } = usePanelRun(panel.queries);
  const rows = byService(run.store.list(), queries, ['cpu', 'memory', 'pods']);
  const peak = (role: string): number => Math.max(1e-9, ...[...rows.values()].map((r) => r[role] ?? 0));
  return (
    <PanelFrame panel={panel} run={run} problem={problem}>
      {rows.size === 0 && run.running === 0 ? (
        <p class="empty">No services in this time range.</p>
      ) : (
        <ul class="service-rows">
          {[...rows.entries()].map(([service, r]) => (
            <li key={service}>
              <span class="service-name">{service}</span>
              <MiniGauge label="CPU" fraction={r.cpu === undefined ? undefined : r.cpu / peak('cpu')} text={formatNumber(r.cpu, { decimalPlaces: 2 })} />
              <MiniGauge label="Memory" fraction={r.memory === undefined ? undefined : r.memory / peak('memory')} text={formatBytes(r.memory)} />
              <MiniGauge label="Pods" fraction={r.pods === undefined ? undefined : r.pods / peak('pods')} text={formatNumber(r.pods, { decimalPlaces: 0 })} />
            </li>
          ))}
        </ul>
      )}
    </PanelFrame>
  );
}

/** ServiceMemoryBarsPanel draws each service's memory in use as a bar against its limit. */
export function ServiceMemoryBarsPanel({ panel }: { panel: MemorySpec }) {
  const { run, problem, queries } = usePanelRun(panel.queries);
  const rows = byService(run.store.list(), queries, ['used', 'limit']);
  const widest = Math.max(1, ...[...rows.values()].map((r) => Math.max(r.used ?? 0, r.limit ?? 0)));
  return (
    <PanelFrame panel={panel} run={run} problem={problem}>
      {rows.size === 0 && run.running === 0 ? (
        <p class="empty">No services in this time range.</p>
      ) : (
        <ul class="memory-bars">
          {[...rows.entries()].map(([service, r]) => {
            const share = r.limit ? (r.used ?? 0) / r.limit : undefined;
            return (
              <li key={service}>
                <span class="service-name">{service}</span>
                <svg class="memory-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label={`${service}: ${formatBytes(r.used)} of ${formatBytes(r.limit)}`}>
                  {r.limit !== undefined && <rect x="0" y="0" width={(100 * r.limit) / widest} height="10" class="memory-limit" />}
                  <rect x="0" y="1.5" width={(100 * (r.used ?? 0)) / widest} height="7" fill={share !== undefined && share > 0.9 ? '#d44a3a' : '#3274d9'} />
                </svg>
                <span class="muted">
                  {formatBytes(r.used)}
                  {r.limit !== undefined && ` / ${formatBytes(r.limit)}`}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </PanelFrame>
  );
}
