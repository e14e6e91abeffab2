import type { ServiceGraphPanel as GraphSpec } from '../../dashboards/types.js';
import { fillQuery, PanelQueryError } from './context.js';
import { PanelFrame } from './panelFrame.js';
import { usePanelEnv } from './usePanelRun.js';

/**
 * ServiceGraphPanel is where the dependency graph drawn from trace spans will be. Sluice does
 * not store traces yet, so there are no edges to draw: the panel shows the service it centres
 * on and says plainly why nothing surrounds it, rather than an empty box.
 */
export function ServiceGraphPanel({ panel }: { panel: GraphSpec }) {
  const env = usePanelEnv();
  let center = 'all services';
  let problem: string | undefined;
  try {
    if (panel.serviceName) center = fillQuery(panel.serviceName, env);
  } catch (err) {
    problem = err instanceof PanelQueryError ? err.message : String(err);
  }
  return (
    <PanelFrame panel={panel} problem={problem}>
      <div class="service-graph">
        <svg viewBox="0 0 200 80" role="img" aria-label={`Service graph centred on ${center}`}>
          <circle cx="100" cy="34" r="18" class="graph-node" />
          <text x="100" y="38" text-anchor="middle" class="graph-label">
            {center.length > 14 ? center.slice(0, 13) + '…' : center}
          </text>
        </svg>
        <p class="empty">
          No trace data yet. The graph of {panel.metric ?? 'requests'} between services (up to {panel.maxHops ?? 3} hops from {center}) is built from trace
          spans, which this Sluice does not ingest yet.
        </p>
      </div>
    </PanelFrame>
  );
}
