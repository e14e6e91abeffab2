import { useState } from 'preact/hooks';
import type { DashboardSpec, DashboardVariable } from '../../dashboards/types.js';
import type { Draft } from './draft.js';
import { FormDialog } from './formDialog.js';

interface SettingsProps {
  draft: Draft;
  onApply: (draft: Draft) => void;
  onClose: () => void;
}

const SORTS = ['', 'alphabetical', 'alphabetical-desc', 'numerical', 'numerical-desc'] as const;

/**
 * SettingsDialog edits the dashboard as a whole: its title (the stored name), category,
 * default duration, shared crosshair and smoothing, and its variables, each filled from a
 * metric's label or a log label.
 */
export function SettingsDialog({ draft, onApply, onClose }: SettingsProps) {
  const [name, setName] = useState(draft.name);
  const [category, setCategory] = useState(draft.spec.category ?? '');
  const [duration, setDuration] = useState(draft.spec.duration);
  const [crosshair, setCrosshair] = useState(draft.spec.sharedCrosshair !== false);
  const [smooth, setSmooth] = useState(draft.spec.smooth ?? false);
  const [variables, setVariables] = useState<DashboardVariable[]>((draft.spec.variables ?? []).map((v) => ({ ...v, source: { ...v.source } })));

  const setVariable = (index: number, change: (v: DashboardVariable) => DashboardVariable): void => setVariables((vs) => vs.map((v, i) => (i === index ? change(v) : v)));

  const apply = (): void => {
    const spec: DashboardSpec = { ...draft.spec, duration: duration.trim() };
    if (category.trim() === '') delete spec.category;
    else spec.category = category.trim();
    if (crosshair) delete spec.sharedCrosshair;
    else spec.sharedCrosshair = false;
    if (smooth) spec.smooth = true;
    else delete spec.smooth;
    if (variables.length === 0) delete spec.variables;
    else spec.variables = variables;
    onApply({ ...draft, name: name.trim() || draft.name, spec });
  };

  return (
    <FormDialog titleId="settings-title" title="Dashboard settings" onSubmit={apply} onClose={onClose}>
      <label for="dash-name">Title</label>
      <input id="dash-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="dash-category">Category (Custom when empty)</label>
      <input id="dash-category" value={category} onInput={(e) => setCategory(e.currentTarget.value)} />
      <label for="dash-duration">Default time range (duration, e.g. 6h)</label>
      <input id="dash-duration" value={duration} onInput={(e) => setDuration(e.currentTarget.value)} />
      <label class="inline">
        <input type="checkbox" checked={crosshair} onChange={(e) => setCrosshair(e.currentTarget.checked)} /> Shared crosshair
      </label>
      <label class="inline">
        <input type="checkbox" checked={smooth} onChange={(e) => setSmooth(e.currentTarget.checked)} /> Smooth time series (moving average)
      </label>
      <fieldset>
        <legend>Variables</legend>
        {variables.map((v, i) => (
          <div class="variable-row" key={i} data-variable-index={i}>
            <label for={`v-name-${i}`}>Name</label>
            <input id={`v-name-${i}`} value={v.name} onInput={(e) => setVariable(i, (x) => ({ ...x, name: e.currentTarget.value }))} />
            <label for={`v-label-${i}`}>Label</label>
            <input id={`v-label-${i}`} value={v.label ?? ''} onInput={(e) => setVariable(i, (x) => ({ ...x, label: e.currentTarget.value || undefined }))} />
            <label for={`v-signal-${i}`}>Values from</label>
            <select
              id={`v-signal-${i}`}
              value={v.source.signal}
              onChange={(e) => setVariable(i, (x) => ({ ...x, source: e.currentTarget.value === 'logs' ? { signal: 'logs', label: x.source.label } : { signal: 'metrics', metric: '', label: x.source.label } }))}
            >
              <option value="metrics">a metric's label</option>
              <option value="logs">a log label</option>
            </select>
            {v.source.signal === 'metrics' && (
              <>
                <label for={`v-metric-${i}`}>Metric</label>
                <input id={`v-metric-${i}`} value={v.source.metric} onInput={(e) => setVariable(i, (x) => ({ ...x, source: { signal: 'metrics', metric: e.currentTarget.value, label: x.source.label } }))} />
              </>
            )}
            <label for={`v-source-label-${i}`}>Label name</label>
            <input id={`v-source-label-${i}`} value={v.source.label} onInput={(e) => setVariable(i, (x) => ({ ...x, source: { ...x.source, label: e.currentTarget.value } }))} />
            <label for={`v-regex-${i}`}>Regex filter</label>
            <input id={`v-regex-${i}`} value={v.regex ?? ''} onInput={(e) => setVariable(i, (x) => ({ ...x, regex: e.currentTarget.value || undefined }))} />
            <label for={`v-sort-${i}`}>Sort</label>
            <select id={`v-sort-${i}`} value={v.sort ?? ''} onChange={(e) => setVariable(i, (x) => ({ ...x, sort: (e.currentTarget.value || undefined) as DashboardVariable['sort'] }))}>
              {SORTS.map((s) => (
                <option key={s} value={s}>
                  {s === '' ? 'as found' : s}
                </option>
              ))}
            </select>
            <label class="inline">
              <input type="checkbox" checked={v.multi ?? false} onChange={(e) => setVariable(i, (x) => ({ ...x, multi: e.currentTarget.checked || undefined }))} /> Multiple values
            </label>
            <label class="inline">
              <input type="checkbox" checked={v.includeAll ?? false} onChange={(e) => setVariable(i, (x) => ({ ...x, includeAll: e.currentTarget.checked || undefined }))} /> Offer All
            </label>
            <button type="button" class="small danger" aria-label={`Remove variable ${v.name}`} onClick={() => setVariables((vs) => vs.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" class="small" onClick={() => setVariables((vs) => [...vs, { name: `var${vs.length + 1}`, kind: 'query', source: { signal: 'logs', label: 'service_name' } }])}>
          Add variable
        </button>
      </fieldset>
    </FormDialog>
  );
}
