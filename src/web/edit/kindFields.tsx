import type { PanelKind } from '../../dashboards/types.js';

/**
 * The kind-specific fields of the panel editor that have inputs of their own, for the kinds
 * people edit most (timeseries, stat, log-events). Every other field of a panel stays in the
 * editor's JSON field, so nothing of the spec is out of reach; these fields leave it.
 */

type Options = Record<string, unknown>;

/** FORM_FIELDS are the top-level fields the form edits, per kind; the JSON field holds the rest. */
export const FORM_FIELDS: Partial<Record<PanelKind, readonly string[]>> = {
  timeseries: ['variant', 'unit', 'yMin', 'yMax', 'percentScale', 'smooth', 'yAxisLabel', 'highlightWhen'],
  stat: ['calculation', 'format', 'sparkline'],
  'log-events': ['rawLogql', 'limit', 'distributionOnly'],
};

/** splitOptions parts a panel's kind options into what the kind's form edits and the rest. */
export function splitOptions(kind: PanelKind, options: Options): { form: Options; rest: Options } {
  const owned = FORM_FIELDS[kind] ?? [];
  const form: Options = {};
  const rest: Options = {};
  for (const [k, v] of Object.entries(options)) (owned.includes(k) ? form : rest)[k] = v;
  return { form, rest };
}

const VARIANTS = ['line', 'area', 'bar', 'stacked-area', 'stacked-bar', 'normalized-bar'] as const;
const REDUCERS = ['last', 'mean', 'max', 'min', 'sum'] as const;

/** without returns `o` with `key` set to `value`, or without it when the value is empty. */
function withField(o: Options, key: string, value: unknown): Options {
  const next = { ...o };
  if (value === undefined || value === '' || value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) delete next[key];
  else next[key] = value;
  return next;
}

/** numberOf reads a number input: empty is no value; what the browser cannot read as a number too. */
function numberOf(input: HTMLInputElement): number | undefined {
  return input.value.trim() === '' || Number.isNaN(input.valueAsNumber) ? undefined : input.valueAsNumber;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

interface KindFieldsProps {
  kind: PanelKind;
  form: Options;
  onChange: (form: Options) => void;
}

/** KindFields draws the form of a kind that has one; nothing for the others. */
export function KindFields({ kind, form, onChange }: KindFieldsProps) {
  const set = (key: string, value: unknown): void => onChange(withField(form, key, value));
  if (kind === 'timeseries') {
    const highlight = (form.highlightWhen ?? {}) as Options;
    const setHighlight = (key: string, value: unknown): void => {
      const next = withField(highlight, key, value);
      // Left as typed: a threshold without its query is for the server's check to point out.
      set('highlightWhen', Object.keys(next).length === 0 ? undefined : next);
    };
    return (
      <fieldset class="kind-fields" data-kind="timeseries">
        <legend>Time series</legend>
        <label for="ts-variant">Drawn as</label>
        <select id="ts-variant" value={text(form.variant) || 'line'} onChange={(e) => set('variant', e.currentTarget.value === 'line' ? undefined : e.currentTarget.value)}>
          {VARIANTS.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
        <label for="ts-unit">Unit</label>
        <input id="ts-unit" value={text(form.unit)} placeholder="e.g. percent, bytes, s, reqps" onInput={(e) => set('unit', e.currentTarget.value.trim())} />
        <label for="ts-y-label">Y axis label</label>
        <input id="ts-y-label" value={text(form.yAxisLabel)} onInput={(e) => set('yAxisLabel', e.currentTarget.value)} />
        <label for="ts-y-min">Y min</label>
        <input id="ts-y-min" type="number" step="any" value={text(form.yMin)} onInput={(e) => set('yMin', numberOf(e.currentTarget))} />
        <label for="ts-y-max">Y max</label>
        <input id="ts-y-max" type="number" step="any" value={text(form.yMax)} onInput={(e) => set('yMax', numberOf(e.currentTarget))} />
        <label class="inline">
          <input type="checkbox" checked={form.percentScale === true} onChange={(e) => set('percentScale', e.currentTarget.checked)} /> Percent scale (0 to 100)
        </label>
        <label class="inline">
          <input type="checkbox" checked={form.smooth === true} onChange={(e) => set('smooth', e.currentTarget.checked)} /> Smooth (moving average)
        </label>
        <label for="ts-highlight-query">Highlight query</label>
        <input id="ts-highlight-query" value={text(highlight.query)} title="Bands where this query is above the threshold" onInput={(e) => setHighlight('query', e.currentTarget.value)} />
        <label for="ts-highlight-threshold">Highlight threshold</label>
        <input id="ts-highlight-threshold" type="number" step="any" value={text(highlight.threshold)} onInput={(e) => setHighlight('threshold', numberOf(e.currentTarget))} />
      </fieldset>
    );
  }
  if (kind === 'stat') {
    const format = (form.format ?? {}) as Options;
    const setFormat = (key: string, value: unknown): void => set('format', withField(format, key, value));
    return (
      <fieldset class="kind-fields" data-kind="stat">
        <legend>Stat</legend>
        <label for="stat-calculation">Calculation</label>
        <select id="stat-calculation" value={text(form.calculation) || 'last'} onChange={(e) => set('calculation', e.currentTarget.value)}>
          {REDUCERS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <label for="stat-unit">Unit</label>
        <input id="stat-unit" value={text(format.unit)} placeholder="e.g. percent, bytes, s" onInput={(e) => setFormat('unit', e.currentTarget.value.trim())} />
        <label for="stat-decimals">Decimal places</label>
        <input id="stat-decimals" type="number" min={0} step={1} value={text(format.decimalPlaces)} onInput={(e) => setFormat('decimalPlaces', numberOf(e.currentTarget))} />
        <label class="inline">
          <input type="checkbox" checked={form.sparkline === true} onChange={(e) => set('sparkline', e.currentTarget.checked)} /> Sparkline
        </label>
      </fieldset>
    );
  }
  if (kind === 'log-events') {
    return (
      <fieldset class="kind-fields" data-kind="log-events">
        <legend>Log events</legend>
        <label for="logs-raw">LogQL (rawLogql)</label>
        <input id="logs-raw" value={text(form.rawLogql)} placeholder='{service_name="checkout"} |= "error"' onInput={(e) => set('rawLogql', e.currentTarget.value)} />
        <label for="logs-limit">Lines shown (limit)</label>
        <input id="logs-limit" type="number" min={1} step={1} value={text(form.limit)} onInput={(e) => set('limit', numberOf(e.currentTarget))} />
        <label class="inline">
          <input type="checkbox" checked={form.distributionOnly === true} onChange={(e) => set('distributionOnly', e.currentTarget.checked)} /> Volume chart only (no lines)
        </label>
      </fieldset>
    );
  }
  return null;
}
