import { useState } from 'preact/hooks';
import { PANEL_KINDS, type Panel, type PanelKind, type PanelQuery } from '../../dashboards/types.js';
import { QueryEditor } from '../editor/queryEditor.js';
import { Dialog } from '../lib/dialog.js';
import { kindOptions } from './draft.js';

interface PanelEditorProps {
  /** panel is the panel to edit, or a new one (empty id) from the kind picker. */
  panel: Panel;
  onApply: (panel: Panel) => void;
  onClose: () => void;
}

/**
 * PanelEditor edits one panel: its kind, title, description, queries (each in the query
 * editor of its language, with legend name, colour and hidden), and the kind's own options as
 * JSON. Apply hands the panel back to the draft; the server checks it on save.
 */
export function PanelEditor({ panel, onApply, onClose }: PanelEditorProps) {
  const [kind, setKind] = useState<PanelKind>(panel.kind);
  const [title, setTitle] = useState(panel.title);
  const [description, setDescription] = useState(panel.description ?? '');
  const [queries, setQueries] = useState<PanelQuery[]>(panel.queries.map((q) => ({ ...q })));
  const [options, setOptions] = useState(JSON.stringify(kindOptions(panel), null, 2));
  const [problem, setProblem] = useState<string>();
  const isNew = panel.id === '';

  const setQuery = (index: number, change: Partial<PanelQuery>): void =>
    setQueries((qs) =>
      qs.map((q, i) => {
        if (i !== index) return q;
        const next: PanelQuery = { ...q, ...change };
        for (const key of Object.keys(next) as Array<keyof PanelQuery>) if (next[key] === undefined || next[key] === '' || next[key] === false) if (key !== 'query') delete next[key];
        return next;
      }),
    );

  const apply = (e: Event): void => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = options.trim() === '' ? {} : JSON.parse(options);
    } catch (err) {
      setProblem(`Options are not JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem('Options must be a JSON object of the kind\'s fields, e.g. {"unit": "percent"}');
      return;
    }
    const edited = { ...(parsed as Record<string, unknown>), id: panel.id, kind, title: title.trim() || 'Untitled', queries } as Record<string, unknown>;
    if (description.trim() !== '') edited.description = description;
    onApply(edited as unknown as Panel);
  };

  return (
    <Dialog titleId="panel-editor-title" onClose={onClose} class="wide">
      <form class="dialog-form panel-editor" onSubmit={apply}>
        <h2 id="panel-editor-title">{isNew ? 'Add panel' : `Edit panel ${panel.id}`}</h2>
        <label for="panel-kind">Kind</label>
        <select id="panel-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as PanelKind)}>
          {PANEL_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <label for="panel-title">Title</label>
        <input id="panel-title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="panel-description">Description (Markdown)</label>
        <textarea id="panel-description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <fieldset class="queries">
          <legend>Queries</legend>
          {queries.map((q, i) => {
            const language = q.queryKind === 'loki' ? 'logql' : 'promql';
            return (
              <div class="query-row" key={i} data-query-index={i}>
                <div class="query-row-head">
                  <label for={`query-kind-${i}`}>Query {i + 1} language</label>
                  <select id={`query-kind-${i}`} value={q.queryKind ?? 'prometheus'} onChange={(e) => setQuery(i, { queryKind: e.currentTarget.value === 'loki' ? 'loki' : undefined })}>
                    <option value="prometheus">PromQL</option>
                    <option value="loki">LogQL</option>
                  </select>
                  <label for={`query-name-${i}`}>Legend</label>
                  <input id={`query-name-${i}`} value={q.name ?? ''} placeholder="{{service_name}}" onInput={(e) => setQuery(i, { name: e.currentTarget.value })} />
                  <label class="inline">
                    <input type="checkbox" checked={q.hidden ?? false} onChange={(e) => setQuery(i, { hidden: e.currentTarget.checked })} /> Hidden
                  </label>
                  <button type="button" class="small danger" aria-label={`Remove query ${i + 1}`} onClick={() => setQueries((qs) => qs.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </div>
                <QueryEditor key={language} language={language} value={q.query} onChange={(text) => setQuery(i, { query: text })} onRun={() => undefined} />
              </div>
            );
          })}
          <button type="button" class="small" onClick={() => setQueries((qs) => [...qs, { query: '', ...(kind === 'log-events' ? { queryKind: 'loki' as const } : {}) }])}>
            Add query
          </button>
        </fieldset>
        <label for="panel-options">Options of the {kind} kind (JSON)</label>
        <textarea id="panel-options" rows={6} spellcheck={false} value={options} onInput={(e) => setOptions(e.currentTarget.value)} />
        {problem && (
          <p class="panel-error" role="alert">
            {problem}
          </p>
        )}
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary">
            {isNew ? 'Add panel' : 'Apply'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
