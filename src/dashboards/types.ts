/**
 * The dashboard spec as TypeScript types. `schemas/dashboard.schema.json` is the authority on
 * shape; these types describe a value that has passed it, so lint rules and the routes can
 * read fields without re-checking types.
 */

export type QueryKind = 'prometheus' | 'loki';
export type SeriesReducer = 'last' | 'mean' | 'max' | 'min' | 'sum';

export interface PanelQuery {
  query: string;
  name?: string;
  queryKind?: QueryKind;
  includePartialStep?: boolean;
  color?: string;
  formulaSource?: string;
  hidden?: boolean;
}

export interface PanelInterlink {
  label: string;
  targetDashboardId: string;
  requiredLabels: string[];
  paramMap: Record<string, string>;
  entityKind?: string;
  keepTimeRange?: boolean;
  group?: string;
}

export interface PanelHighlightWhen {
  query: string;
  queryKind?: QueryKind;
  threshold?: number;
  colors?: Record<string, string>;
  defaultColor?: string;
}

export interface NumberFormat {
  unit?: string;
  decimalPlaces?: number;
}

export interface ColorStop {
  value: number;
  color: string;
}

export interface LogFilter {
  tag: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface LogQueryBuilderState {
  filters: LogFilter[];
  groupBy: string[];
  window: string;
  aggregation?: 'count' | 'rate' | 'error_rate';
}

/** PanelBase holds the fields every panel kind has. */
export interface PanelBase {
  id: string;
  title: string;
  queries: PanelQuery[];
  description?: string;
  interlinks?: PanelInterlink[];
}

export interface TimeseriesPanel extends PanelBase {
  kind: 'timeseries';
  yAxisLabel?: string;
  xAxisLabel?: string;
  unit?: string;
  variant?: 'line' | 'bar' | 'stacked-bar' | 'normalized-bar' | 'area' | 'stacked-area';
  yMin?: number;
  yMax?: number;
  integerYMax?: boolean;
  percentScale?: boolean;
  highlightWhen?: PanelHighlightWhen;
  smooth?: boolean;
}

export interface StatPanel extends PanelBase {
  kind: 'stat';
  sparkline?: boolean;
  sparklineColor?: string;
  calculation?: SeriesReducer;
  format?: NumberFormat;
}

export interface GaugePanel extends PanelBase {
  kind: 'gauge';
  sparkline?: boolean;
  sparklineColor?: string;
  max?: number;
  format?: NumberFormat;
}

export interface ServiceGaugesPanel extends PanelBase {
  kind: 'service-gauges';
}

export interface ServiceMemoryBarsPanel extends PanelBase {
  kind: 'service-memory-bars';
}

export interface BarPanel extends PanelBase {
  kind: 'bar';
  yAxisLabel?: string;
  xAxisLabel?: string;
  reducer?: SeriesReducer;
  unit?: string;
  percentScale?: boolean;
  color?: string;
}

export interface PiePanel extends PanelBase {
  kind: 'pie';
  reducer?: SeriesReducer;
}

export interface LabelPanel extends PanelBase {
  kind: 'label';
  reducer?: SeriesReducer;
  timestampAge?: boolean;
  sort?: 'label' | 'value-asc' | 'value-desc';
  format?: NumberFormat;
  color?: string;
  thresholds?: ColorStop[];
}

export interface ServiceGraphPanel extends PanelBase {
  kind: 'service-graph';
  metric?: 'requests' | 'errors' | 'latency';
  serviceName?: string;
  maxHops?: number;
}

export interface LogEventsPanel extends PanelBase {
  kind: 'log-events';
  distributionOnly?: boolean;
  logqlState?: LogQueryBuilderState;
  rawLogql?: string;
  limit?: number;
  /** serviceName is deprecated in favour of rawLogql or logqlState. */
  serviceName?: string;
  /** level is deprecated in favour of rawLogql or logqlState. */
  level?: string;
}

export type Panel =
  | TimeseriesPanel
  | StatPanel
  | GaugePanel
  | ServiceGaugesPanel
  | ServiceMemoryBarsPanel
  | BarPanel
  | PiePanel
  | LabelPanel
  | ServiceGraphPanel
  | LogEventsPanel;

export type PanelKind = Panel['kind'];

/** PANEL_KINDS lists the ten kinds in the spec's order. */
export const PANEL_KINDS: readonly PanelKind[] = [
  'timeseries',
  'stat',
  'gauge',
  'service-gauges',
  'service-memory-bars',
  'bar',
  'pie',
  'label',
  'service-graph',
  'log-events',
];

export interface GridCell {
  i: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface DashboardSection {
  title: string;
  cells: GridCell[];
  rowHeight?: number;
  defaultCollapsed?: boolean;
}

export interface MetricsVariableSource {
  signal: 'metrics';
  metric: string;
  label: string;
  scope?: string;
}

export interface LogsVariableSource {
  signal: 'logs';
  label: string;
  expr?: string;
}

export type VariableQuerySource = MetricsVariableSource | LogsVariableSource;

export interface DashboardVariable {
  name: string;
  kind: 'query';
  source: VariableQuerySource;
  label?: string;
  multi?: boolean;
  includeAll?: boolean;
  regex?: string;
  sort?: 'alphabetical' | 'alphabetical-desc' | 'numerical' | 'numerical-desc';
  defaultValue?: string[];
}

export interface DashboardSpec {
  schemaVersion?: number;
  category?: string;
  libraryRef?: string;
  duration: string;
  panels: Record<string, Panel>;
  sections: DashboardSection[];
  variables?: DashboardVariable[];
  smooth?: boolean;
  sharedCrosshair?: boolean;
}

/** GRID_COLUMNS is the width of the layout grid; cells must fit inside it. */
export const GRID_COLUMNS = 24;

/** DEFAULT_CATEGORY is where a dashboard without a category is listed. */
export const DEFAULT_CATEGORY = 'Custom';
