import type { Panel } from '../../dashboards/types.js';
import { BarPanel } from './barPanel.js';
import { LabelPanel } from './labelPanel.js';
import { LogEventsPanel } from './logEventsPanel.js';
import { PiePanel } from './piePanel.js';
import { ServiceGaugesPanel, ServiceMemoryBarsPanel } from './servicePanels.js';
import { ServiceGraphPanel } from './serviceGraphPanel.js';
import { GaugePanel, StatPanel } from './statPanel.js';
import { TimeseriesPanel } from './timeseriesPanel.js';

/** PanelView picks the component for a panel's kind. */
export function PanelView({ panel }: { panel: Panel }) {
  switch (panel.kind) {
    case 'timeseries':
      return <TimeseriesPanel panel={panel} />;
    case 'stat':
      return <StatPanel panel={panel} />;
    case 'gauge':
      return <GaugePanel panel={panel} />;
    case 'bar':
      return <BarPanel panel={panel} />;
    case 'pie':
      return <PiePanel panel={panel} />;
    case 'label':
      return <LabelPanel panel={panel} />;
    case 'service-gauges':
      return <ServiceGaugesPanel panel={panel} />;
    case 'service-memory-bars':
      return <ServiceMemoryBarsPanel panel={panel} />;
    case 'service-graph':
      return <ServiceGraphPanel panel={panel} />;
    case 'log-events':
      return <LogEventsPanel panel={panel} />;
    default:
      return null;
  }
}
