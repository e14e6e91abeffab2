import type { LogFilter, LogQueryBuilderState } from '../../dashboards/types.js';
import { CheckField, ListField, TextField } from './fieldInputs.js';

const OPERATORS: ReadonlyArray<LogFilter['op']> = ['=', '!=', '=~', '!~'];
const AGGREGATIONS = ['count', 'rate', 'error_rate'] as const;

/** NEW_STATE is what switching the builder on starts from: one filter to fill in, a one-minute window. */
const NEW_STATE: LogQueryBuilderState = { filters: [{ tag: 'service_name', op: '=', value: '' }], groupBy: ['level'], window: '1m' };

interface LogBuilderFieldProps {
  value: LogQueryBuilderState | undefined;
  onValue: (state: LogQueryBuilderState | undefined) => void;
}

/**
 * LogBuilderField edits a log panel's builder state (`logqlState`): the label filters (label,
 * operator, value), the labels the volume chart is grouped by, the aggregation window and the
 * aggregation. The spec requires filters, groupBy and window, so they are always written; a
 * filter without a label and an empty window are refused by the browser at their inputs, and
 * the last filter cannot be removed, since a stream selector needs at least one matcher.
 */
export function LogBuilderField({ value, onValue }: LogBuilderFieldProps) {
  const on = value !== undefined;
  const state = value ?? NEW_STATE;
  const set = (change: Partial<LogQueryBuilderState>): void => onValue({ ...state, ...change });
  const setFilter = (i: number, change: Partial<LogFilter>): void => set({ filters: state.filters.map((f, j) => (j === i ? { ...f, ...change } : f)) });
  return (
    <>
      <CheckField id="logs-builder" label="Build the volume chart from filters (logqlState)" checked={on} onValue={(v) => onValue(v ? { ...NEW_STATE, filters: [...NEW_STATE.filters] } : undefined)} />
      {on && (
        <fieldset class="log-builder" id="logs-builder-fields">
          <legend>Log query builder</legend>
          <p class="hint">
            The volume chart counts the lines these filters select, grouped by the labels below. The lines come from the LogQL above when it is set, else from these filters.
          </p>
          {state.filters.map((f, i) => (
            <div class="pair-row" key={i} data-filter-index={i}>
              <label for={`builder-tag-${i}`}>Label</label>
              <input id={`builder-tag-${i}`} value={f.tag} required placeholder="service_name" onInput={(e) => setFilter(i, { tag: e.currentTarget.value.trim() })} />
              <label for={`builder-op-${i}`}>Operator</label>
              <select id={`builder-op-${i}`} value={f.op} onChange={(e) => setFilter(i, { op: e.currentTarget.value as LogFilter['op'] })}>
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {op}
                  </option>
                ))}
              </select>
              <label for={`builder-value-${i}`}>Value</label>
              <input id={`builder-value-${i}`} value={f.value} placeholder="$service" onInput={(e) => setFilter(i, { value: e.currentTarget.value })} />
              <button
                type="button"
                class="small danger"
                aria-label={`Remove filter ${i + 1}`}
                disabled={state.filters.length === 1}
                onClick={() => set({ filters: state.filters.filter((_, j) => j !== i) })}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="small" onClick={() => set({ filters: [...state.filters, { tag: '', op: '=', value: '' }] })}>
            Add filter
          </button>
          <div class="kind-fields">
            <ListField id="builder-group-by" label="Group by labels (comma separated)" value={state.groupBy} placeholder="service_name, level" onValue={(v) => set({ groupBy: v })} />
            <TextField id="builder-window" label="Window" value={state.window} required placeholder="1m" onValue={(v) => set({ window: v.trim() })} />
            <label for="builder-aggregation">Aggregation</label>
            <select
              id="builder-aggregation"
              value={state.aggregation ?? ''}
              onChange={(e) => {
                const { aggregation: _old, ...rest } = state;
                const picked = e.currentTarget.value;
                onValue(picked === '' ? rest : { ...rest, aggregation: picked as LogQueryBuilderState['aggregation'] });
              }}
            >
              <option value="">not set (count)</option>
              {AGGREGATIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </div>
        </fieldset>
      )}
    </>
  );
}
