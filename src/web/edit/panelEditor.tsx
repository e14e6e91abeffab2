import { useState } from 'preact/hooks';
import { PANEL_KINDS, type Panel, type PanelKind, type PanelQuery } from '../../dashboards/types.js';
import { QueryEditor } from '../editor/queryEditor.js';
import type { DashboardIssue } from '../lib/dashboards.js';
import { IssueList } from '../lib/issues.js';
import { kindOptions } from './draft.js';
import { FormDialog, JsonField, parseJsonObject } from './formDialog.js';
import { KindFields, ownedFields, splitOptions } from './kindFields.js';

interface PanelEditorProps {
  /** panel is the panel to edit, or a new one (empty id) from the kind picker. */
  panel: Panel;
  /**
   * check asks the server's validate endpoint about the draft with this panel in it and
   * answers the findings about this panel; Apply goes through only when none is an error.
   */
  check: (panel: Panel) => Promise<DashboardIssue[]>;
  onApply: (panel: Panel) => void;
  onClose: () => void;
  /** targets lists the org's dashboard ids, offered as link targets. */
  targets?: () => Promise<string[]>;
}

type Problem = { message: string; issues: DashboardIssue[] } | undefined;

const jsonText = (o: Record<string, unknown>): string => (Object.keys(o).length === 0 ? '' : JSON.stringify(o, null, 2));

/**
 * PanelEditor edits one panel: its kind, title, description, queries (each in the query
 * editor of its language, with legend name and hidden), the kind's own fields and the links
 * menu in forms (kindFields.tsx), and whatever else the kind has as JSON. Apply asks the
 * server to check the panel first and shows its findings at their paths; a panel without
 * errors goes back to the draft.
 */
export function PanelEditor({ panel, check, onApply, onClose, targets }: PanelEditorProps) {
  const initial = splitOptions(panel.kind, kindOptions(panel));
  const [kind, setKind] = useState<PanelKind>(panel.kind);
  const [title, setTitle] = useState(panel.title);
  const [description, setDescription] = useState(panel.description ?? '');
  const [queries, setQueries] = useState<PanelQuery[]>(panel.queries.map((q) => ({ ...q })));
  const [form, setForm] = useState(initial.form);
  const [rest, setRest] = useState(jsonText(initial.rest));
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
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

  /** changeKind moves the fields between the form and the JSON as the new kind's form owns them. */
  const changeKind = (next: PanelKind): void => {
    let others: Record<string, unknown> = {};
    try {
      others = parseJsonObject(rest, 'Options', true);
    } catch {
      // Text that does not parse stays as typed; Apply will say what is wrong with it.
      setKind(next);
      return;
    }
    const parts = splitOptions(next, { ...others, ...form });
    setKind(next);
    setForm(parts.form);
    setRest(jsonText(parts.rest));
  };

  const apply = async (): Promise<void> => {
    let others: Record<string, unknown>;
    try {
      others = parseJsonObject(rest, 'Other options', true);
    } catch (err) {
      setProblem({ message: err instanceof Error ? err.message : String(err), issues: [] });
      return;
    }
    const owned = ownedFields(kind);
    const clash = Object.keys(others).find((k) => owned.includes(k));
    if (clash !== undefined) {
      setProblem({ message: `Set ${clash} in the form above, not in the JSON.`, issues: [] });
      return;
    }
    const edited = { ...others, ...form, id: panel.id, kind, title: title.trim() || 'Untitled', queries } as Record<string, unknown>;
    if (description.trim() !== '') edited.description = description;
    setBusy(true);
    try {
      const issues = await check(edited as unknown as Panel);
      const errors = issues.filter((i) => i.severity === 'error');
      if (errors.length > 0) {
        setProblem({ message: 'The server found problems in this panel:', issues });
        return;
      }
      onApply(edited as unknown as Panel);
    } catch (err) {
      setProblem({ message: `The panel could not be checked: ${err instanceof Error ? err.message : String(err)}`, issues: [] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      titleId="panel-editor-title"
      title={isNew ? 'Add panel' : `Edit panel ${panel.id}`}
      formClass="panel-editor"
      submitLabel={isNew ? 'Add panel' : 'Apply'}
      busy={busy}
      problem={
        problem && (
          <>
            <p>{problem.message}</p>
            <IssueList issues={problem.issues} />
          </>
        )
      }
      onSubmit={() => void apply()}
      onClose={onClose}
    >
      <label for="panel-kind">Kind</label>
      <select id="panel-kind" value={kind} onChange={(e) => changeKind(e.currentTarget.value as PanelKind)}>
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
      <KindFields kind={kind} form={form} onChange={setForm} targets={targets} />
      <JsonField id="panel-options" label={`Other options of the ${kind} kind (JSON)`} rows={4} value={rest} onInput={setRest} />
    </FormDialog>
  );
}
