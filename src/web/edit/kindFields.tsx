import type { ColorStop, LogQueryBuilderState, PanelInterlink, PanelKind } from '../../dashboards/types.js';
import { CheckField, FormatFields, NumberField, PairsField, SelectField, TextField, withField, type Options } from './fieldInputs.js';
import { InterlinksFields } from './interlinksFields.js';
import { LogBuilderField } from './logBuilderField.js';
import { ThresholdsField } from './thresholdsField.js';

/**
 * The kind-specific fields of the panel editor, each with an input of its own, for every
 * kind of the spec, and the panel's links menu. Anything else a panel carries (fields of
 * another kind left over from a kind change) stays in the editor's JSON field, so nothing is
 * lost.
 */

/** FORM_FIELDS are the top-level fields each kind's form edits; the JSON field holds the rest. */
export const FORM_FIELDS: Record<PanelKind, readonly string[]> = {
  timeseries: ['variant', 'unit', 'yMin', 'yMax', 'integerYMax', 'percentScale', 'smooth', 'yAxisLabel', 'xAxisLabel', 'highlightWhen'],
  stat: ['calculation', 'format', 'sparkline', 'sparklineColor'],
  gauge: ['max', 'format', 'sparkline', 'sparklineColor'],
  'service-gauges': [],
  'service-memory-bars': [],
  bar: ['reducer', 'unit', 'percentScale', 'color', 'yAxisLabel', 'xAxisLabel'],
  pie: ['reducer'],
  label: ['reducer', 'timestampAge', 'sort', 'format', 'color', 'thresholds'],
  'service-graph': ['metric', 'serviceName', 'maxHops'],
  'log-events': ['rawLogql', 'logqlState', 'limit', 'distributionOnly', 'serviceName', 'level'],
};

/** LINK_FIELD is edited by the links form, whatever the kind. */
export const LINK_FIELD = 'interlinks';

/** ownedFields are the fields a kind's editor has inputs for: its form's and the links. */
export const ownedFields = (kind: PanelKind): readonly string[] => [...FORM_FIELDS[kind], LINK_FIELD];

/** splitOptions parts a panel's kind options into what the forms edit and the rest. */
export function splitOptions(kind: PanelKind, options: Options): { form: Options; rest: Options } {
  const owned = ownedFields(kind);
  const form: Options = {};
  const rest: Options = {};
  for (const [k, v] of Object.entries(options)) (owned.includes(k) ? form : rest)[k] = v;
  return { form, rest };
}

const VARIANTS = ['line', 'area', 'bar', 'stacked-area', 'stacked-bar', 'normalized-bar'] as const;
const REDUCERS = ['last', 'mean', 'max', 'min', 'sum'] as const;
const CARD_SORTS = ['label', 'value-asc', 'value-desc'] as const;
const GRAPH_METRICS = ['requests', 'errors', 'latency'] as const;

interface FormProps {
  form: Options;
  set: (key: string, value: unknown) => void;
}

function TimeseriesFields({ form, set }: FormProps) {
  const highlight = (form.highlightWhen ?? {}) as Options;
  const setHighlight = (key: string, value: unknown): void => {
    const next = withField(highlight, key, value);
    // Left as typed: a threshold without its query is for the server's check to point out.
    set('highlightWhen', Object.keys(next).length === 0 ? undefined : next);
  };
  return (
    <fieldset class="kind-fields" data-kind="timeseries">
      <legend>Time series</legend>
      <SelectField id="ts-variant" label="Drawn as" value={form.variant} fallback="line" choices={VARIANTS} onValue={(v) => set('variant', v)} />
      <TextField id="ts-unit" label="Unit" value={form.unit} placeholder="e.g. percent, bytes, s, reqps" onValue={(v) => set('unit', v.trim())} />
      <TextField id="ts-y-label" label="Y axis label" value={form.yAxisLabel} onValue={(v) => set('yAxisLabel', v)} />
      <TextField id="ts-x-label" label="X axis label" value={form.xAxisLabel} onValue={(v) => set('xAxisLabel', v)} />
      <NumberField id="ts-y-min" label="Y min" value={form.yMin} onValue={(v) => set('yMin', v)} />
      <NumberField id="ts-y-max" label="Y max" value={form.yMax} onValue={(v) => set('yMax', v)} />
      <CheckField label="Percent scale (0 to 100)" checked={form.percentScale === true} onValue={(v) => set('percentScale', v)} />
      <CheckField label="Smooth (moving average)" checked={form.smooth === true} onValue={(v) => set('smooth', v)} />
      <CheckField label="Whole number at the top of the Y axis" checked={form.integerYMax === true} onValue={(v) => set('integerYMax', v)} />
      <TextField id="ts-highlight-query" label="Highlight query" value={highlight.query} title="Bands where this query is above the threshold" onValue={(v) => setHighlight('query', v)} />
      <SelectField id="ts-highlight-kind" label="Highlight query language" value={highlight.queryKind} fallback="prometheus" choices={['prometheus', 'loki']} onValue={(v) => setHighlight('queryKind', v)} />
      <NumberField id="ts-highlight-threshold" label="Highlight threshold" value={highlight.threshold} placeholder="0.5" onValue={(v) => setHighlight('threshold', v)} />
      <TextField id="ts-highlight-color" label="Highlight color" value={highlight.defaultColor} placeholder="#d62728" onValue={(v) => setHighlight('defaultColor', v.trim())} />
      <PairsField
        id="ts-highlight-colors"
        legend="Highlight color per label value"
        keyLabel="Label value"
        valueLabel="color"
        value={highlight.colors as Record<string, string> | undefined}
        addLabel="Add band color"
        onValue={(v) => setHighlight('colors', v)}
      />
    </fieldset>
  );
}

/** SparklineFields are the sparkline switch and color that stat and gauge share. */
function SparklineFields({ form, set, idPrefix }: FormProps & { idPrefix: string }) {
  return (
    <>
      <CheckField id={`${idPrefix}-sparkline`} label="Sparkline" checked={form.sparkline === true} onValue={(v) => set('sparkline', v)} />
      <TextField id={`${idPrefix}-sparkline-color`} label="Sparkline color" value={form.sparklineColor} placeholder="#1f77b4" onValue={(v) => set('sparklineColor', v.trim())} />
    </>
  );
}

function StatFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="stat">
      <legend>Stat</legend>
      <SelectField id="stat-calculation" label="Calculation" value={form.calculation} fallback="last" choices={REDUCERS} onValue={(v) => set('calculation', v)} />
      <FormatFields idPrefix="stat" value={form.format} onValue={(v) => set('format', v)} />
      <SparklineFields idPrefix="stat" form={form} set={set} />
    </fieldset>
  );
}

function GaugeFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="gauge">
      <legend>Gauge</legend>
      <NumberField id="gauge-max" label="Arc maximum" value={form.max} placeholder="auto" onValue={(v) => set('max', v)} />
      <FormatFields idPrefix="gauge" value={form.format} onValue={(v) => set('format', v)} />
      <SparklineFields idPrefix="gauge" form={form} set={set} />
    </fieldset>
  );
}

function BarFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="bar">
      <legend>Bar chart</legend>
      <SelectField id="bar-reducer" label="Samples in a bar combined by" value={form.reducer} fallback="last" choices={REDUCERS} onValue={(v) => set('reducer', v)} />
      <TextField id="bar-unit" label="Unit" value={form.unit} placeholder="e.g. requests" onValue={(v) => set('unit', v.trim())} />
      <TextField id="bar-y-label" label="Y axis label" value={form.yAxisLabel} onValue={(v) => set('yAxisLabel', v)} />
      <TextField id="bar-x-label" label="X axis label" value={form.xAxisLabel} onValue={(v) => set('xAxisLabel', v)} />
      <TextField id="bar-color" label="Color of every series" value={form.color} placeholder="#9467bd" onValue={(v) => set('color', v.trim())} />
      <CheckField label="Percent scale (0 to 100)" checked={form.percentScale === true} onValue={(v) => set('percentScale', v)} />
    </fieldset>
  );
}

function PieFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="pie">
      <legend>Pie</legend>
      <SelectField id="pie-reducer" label="Each series reduced by" value={form.reducer} fallback="last" choices={REDUCERS} onValue={(v) => set('reducer', v)} />
    </fieldset>
  );
}

function LabelFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="label">
      <legend>Label cards</legend>
      <SelectField id="label-reducer" label="Each series reduced by" value={form.reducer} fallback="last" choices={REDUCERS} onValue={(v) => set('reducer', v)} />
      <SelectField id="label-sort" label="Card order" value={form.sort} fallback="label" choices={CARD_SORTS} onValue={(v) => set('sort', v)} />
      <FormatFields idPrefix="label" value={form.format} onValue={(v) => set('format', v)} />
      <TextField id="label-color" label="Card color" value={form.color} placeholder="#2ca02c" onValue={(v) => set('color', v.trim())} />
      <CheckField id="label-timestamp-age" label="Values are Unix timestamps: show their age" checked={form.timestampAge === true} onValue={(v) => set('timestampAge', v)} />
      <ThresholdsField value={form.thresholds as ColorStop[] | undefined} onValue={(v) => set('thresholds', v)} />
    </fieldset>
  );
}

function ServiceGraphFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="service-graph">
      <legend>Service graph</legend>
      <SelectField id="graph-metric" label="Edges show" value={form.metric} fallback="requests" choices={GRAPH_METRICS} onValue={(v) => set('metric', v)} />
      <TextField id="graph-service" label="Centre service" value={form.serviceName} placeholder="$service" onValue={(v) => set('serviceName', v.trim())} />
      <NumberField id="graph-max-hops" label="Hops from the centre" value={form.maxHops} min={1} step={1} placeholder="3" onValue={(v) => set('maxHops', v)} />
    </fieldset>
  );
}

function LogEventsFields({ form, set }: FormProps) {
  return (
    <fieldset class="kind-fields" data-kind="log-events">
      <legend>Log events</legend>
      <TextField id="logs-raw" label="LogQL (rawLogql)" value={form.rawLogql} placeholder='{service_name="checkout"} |= "error"' onValue={(v) => set('rawLogql', v)} />
      <NumberField id="logs-limit" label="Lines shown (limit)" value={form.limit} min={1} step={1} placeholder="100" onValue={(v) => set('limit', v)} />
      <CheckField label="Volume chart only (no lines)" checked={form.distributionOnly === true} onValue={(v) => set('distributionOnly', v)} />
      <LogBuilderField value={form.logqlState as LogQueryBuilderState | undefined} onValue={(v) => set('logqlState', v)} />
      {(form.serviceName !== undefined || form.level !== undefined) && (
        <>
          <p class="hint">Deprecated: express these in the LogQL or the builder instead.</p>
          <TextField id="logs-service" label="Service (serviceName)" value={form.serviceName} onValue={(v) => set('serviceName', v.trim())} />
          <TextField id="logs-level" label="Level (level)" value={form.level} onValue={(v) => set('level', v.trim())} />
        </>
      )}
    </fieldset>
  );
}

/** ServiceQueriesNote says which queries the service kinds read: they have no fields of their own. */
function ServiceQueriesNote({ kind }: { kind: 'service-gauges' | 'service-memory-bars' }) {
  const roles = kind === 'service-gauges' ? 'cpu (cores in use), memory (bytes resident) and pods (running replicas)' : 'used (bytes resident) and limit (bytes allowed)';
  return (
    <fieldset class="kind-fields" data-kind={kind}>
      <legend>{kind === 'service-gauges' ? 'Service gauges' : 'Service memory bars'}</legend>
      <p class="hint" role="note">
        This kind has no fields of its own. It reads queries grouped by service_name with the legend names {roles}; queries without a name are taken in that order.
      </p>
    </fieldset>
  );
}

interface KindFieldsProps {
  kind: PanelKind;
  form: Options;
  onChange: (form: Options) => void;
  /** targets lists dashboard ids for the links form. */
  targets?: () => Promise<string[]>;
}

/** KindFields draws the form of the panel's kind and its links menu. */
export function KindFields({ kind, form, onChange, targets }: KindFieldsProps) {
  const set = (key: string, value: unknown): void => onChange(withField(form, key, value));
  const props = { form, set };
  return (
    <>
      {kind === 'timeseries' && <TimeseriesFields {...props} />}
      {kind === 'stat' && <StatFields {...props} />}
      {kind === 'gauge' && <GaugeFields {...props} />}
      {(kind === 'service-gauges' || kind === 'service-memory-bars') && <ServiceQueriesNote kind={kind} />}
      {kind === 'bar' && <BarFields {...props} />}
      {kind === 'pie' && <PieFields {...props} />}
      {kind === 'label' && <LabelFields {...props} />}
      {kind === 'service-graph' && <ServiceGraphFields {...props} />}
      {kind === 'log-events' && <LogEventsFields {...props} />}
      <InterlinksFields value={form[LINK_FIELD] as PanelInterlink[] | undefined} targets={targets} onValue={(links) => set(LINK_FIELD, links)} />
    </>
  );
}
