import { useRef, useState } from 'preact/hooks';
import type { DashboardSection, DashboardSpec, GridCell, Panel } from '../../dashboards/types.js';
import { RequestFailure } from '../lib/api.js';
import { dashboards, type DashboardIssue, type DashboardRecord } from '../lib/dashboards.js';
import { IssueList } from '../lib/issues.js';
import { addPanel, addSection, changeCell, changeSection, newPanel, placeCell, removePanel, removeSection, replacePanel, type CellChange, type Draft } from './draft.js';
import type { EditDialog } from './dialogs.js';
import { JsonDialog } from './jsonDialog.js';
import { PanelEditor } from './panelEditor.js';
import { SettingsDialog } from './settingsDialog.js';

/**
 * Edit mode of the dashboard view, loaded only when someone edits: the edit toolbar with its
 * dialogs and Save, the controls on every cell (move and resize by mouse or keyboard, edit,
 * remove) and on every section (title, collapsed by default, add panel, remove).
 */

export type SpecChange = (change: (spec: DashboardSpec) => DashboardSpec) => void;

interface EditBarProps {
  org: string;
  record: DashboardRecord;
  draft: Draft;
  setDraft: (draft: Draft) => void;
  dialog: EditDialog | undefined;
  setDialog: (dialog: EditDialog | undefined) => void;
  onSaved: (record: DashboardRecord) => void;
  onCancel: () => void;
  onReload: () => void;
}

type SaveState = { kind: 'idle' } | { kind: 'saving' } | { kind: 'conflict'; message: string } | { kind: 'invalid'; message: string; issues: DashboardIssue[] } | { kind: 'failed'; message: string };

/** EditBar is the toolbar of edit mode and the host of its dialogs; Save sends If-Match. */
export function EditBar({ org, record, draft, setDraft, dialog, setDialog, onSaved, onCancel, onReload }: EditBarProps) {
  const [save, setSave] = useState<SaveState>({ kind: 'idle' });
  const setSpec = (spec: DashboardSpec): void => setDraft({ ...draft, spec });

  const run = async (): Promise<void> => {
    setSave({ kind: 'saving' });
    try {
      const saved = await dashboards.replace(org, record.id, draft.spec, { version: draft.version, name: draft.name });
      setSave({ kind: 'idle' });
      onSaved(saved);
    } catch (err) {
      if (err instanceof RequestFailure && err.status === 412) {
        const details = err.body.details as { currentVersion?: number } | undefined;
        setSave({
          kind: 'conflict',
          message: `This dashboard was saved elsewhere while you edited it (it is now at version ${details?.currentVersion ?? 'newer'}; you started from version ${draft.version}). Your changes were not saved.`,
        });
      } else if (err instanceof RequestFailure && err.code === 'VALIDATION_FAILED') {
        const details = err.body.details as { errors?: DashboardIssue[]; warnings?: DashboardIssue[] } | undefined;
        setSave({ kind: 'invalid', message: err.message, issues: [...(details?.errors ?? []), ...(details?.warnings ?? [])] });
      } else {
        setSave({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
      }
    }
  };

  const editing = dialog?.kind === 'panel' && dialog.panelId !== undefined ? draft.spec.panels[dialog.panelId] : undefined;
  /** placed is the draft with `panel` in it: replacing the one edited, or added to the dialog's section. */
  const placed = (panel: Panel, section: number): { spec: DashboardSpec; id: string } =>
    editing ? { spec: replacePanel(draft.spec, panel), id: panel.id } : addPanel(draft.spec.sections.length === 0 ? addSection(draft.spec, 'Panels') : draft.spec, section, panel);
  /** checkPanel asks the validate endpoint about the draft with the panel in it, and keeps the findings about that panel. */
  const checkPanel = async (panel: Panel, section: number): Promise<DashboardIssue[]> => {
    const { spec, id } = placed(panel, section);
    const result = await dashboards.validate(org, spec);
    const at = `/panels/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return [...result.errors, ...result.warnings].filter((issue) => issue.pointer === at || issue.pointer.startsWith(`${at}/`));
  };
  return (
    <div class="edit-bar" role="toolbar" aria-label="Edit dashboard">
      <span class="edit-badge">Editing</span>
      <button onClick={() => setDialog({ kind: 'panel', section: Math.max(0, draft.spec.sections.length - 1) })}>Add panel</button>
      <button onClick={() => setSpec(addSection(draft.spec, 'New section'))}>Add section</button>
      <button onClick={() => setDialog({ kind: 'settings' })}>Settings</button>
      <button onClick={() => setDialog({ kind: 'json' })}>JSON</button>
      <span class="spacer" />
      <button onClick={onCancel}>Cancel</button>
      <button class="primary" onClick={run} disabled={save.kind === 'saving'}>
        {save.kind === 'saving' ? 'Saving…' : 'Save'}
      </button>
      {save.kind === 'conflict' && (
        <div class="save-problem conflict" role="alert">
          <p>{save.message}</p>
          <button onClick={onReload}>Reload the saved dashboard (drops your changes)</button>{' '}
          <button onClick={() => setSave({ kind: 'idle' })}>Keep editing</button>
        </div>
      )}
      {save.kind === 'invalid' && (
        <div class="save-problem" role="alert">
          <p>Not saved: {save.message}</p>
          <IssueList issues={save.issues} />
        </div>
      )}
      {save.kind === 'failed' && (
        <p class="save-problem panel-error" role="alert">
          Not saved: {save.message}
        </p>
      )}
      {dialog?.kind === 'panel' && (
        <PanelEditor
          panel={editing ?? newPanel('timeseries')}
          check={(panel) => checkPanel(panel, dialog.section)}
          targets={async () => (await dashboards.list(org)).items.map((d) => d.id)}
          onClose={() => setDialog(undefined)}
          onApply={(panel: Panel) => {
            setSpec(placed(panel, dialog.section).spec);
            setDialog(undefined);
          }}
        />
      )}
      {dialog?.kind === 'settings' && (
        <SettingsDialog
          draft={draft}
          onClose={() => setDialog(undefined)}
          onApply={(d) => {
            setDraft(d);
            setDialog(undefined);
          }}
        />
      )}
      {dialog?.kind === 'json' && (
        <JsonDialog
          spec={draft.spec}
          onClose={() => setDialog(undefined)}
          onApply={(spec) => {
            setSpec(spec);
            setDialog(undefined);
          }}
        />
      )}
    </div>
  );
}

interface SectionEditProps {
  section: DashboardSection;
  index: number;
  change: SpecChange;
  setDialog: (dialog: EditDialog) => void;
}

/** SectionEdit renames a section, sets whether it starts collapsed, adds a panel to it or removes it. */
export function SectionEdit({ section, index, change, setDialog }: SectionEditProps) {
  return (
    <div class="section-edit" role="group" aria-label={`Section ${section.title}`}>
      <label for={`section-title-${index}`} class="visually-hidden">
        Title of section {index + 1}
      </label>
      <input id={`section-title-${index}`} class="section-title-input" value={section.title} onInput={(e) => change((s) => changeSection(s, index, { title: e.currentTarget.value }))} />
      <label class="inline">
        <input type="checkbox" checked={section.defaultCollapsed ?? false} onChange={(e) => change((s) => changeSection(s, index, { defaultCollapsed: e.currentTarget.checked }))} /> Collapsed by default
      </label>
      <button class="small" onClick={() => setDialog({ kind: 'panel', section: index })}>
        Add panel here
      </button>
      <button class="small danger" onClick={() => change((s) => removeSection(s, index))}>
        Remove section
      </button>
    </div>
  );
}

interface CellEditProps {
  cell: GridCell;
  panel: Panel;
  section: number;
  rowHeight: number;
  spec: DashboardSpec;
  change: SpecChange;
  setDialog: (dialog: EditDialog) => void;
}

const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * CellEdit sits on a cell in edit mode. Its handle moves the cell with the arrow keys and
 * resizes it with Shift and the arrow keys, or by dragging; the corner grip resizes by mouse.
 */
export function CellEdit({ cell, panel, section, rowHeight, spec, change, setDialog }: CellEditProps) {
  const drag = useRef<{ startX: number; startY: number; col: number; row: number; from: GridCell; base: DashboardSpec; resize: boolean } | undefined>(undefined);
  const where = `column ${cell.x + 1}, row ${cell.y + 1}, ${cell.w} wide, ${cell.h} high`;

  const onKeyDown = (e: KeyboardEvent): void => {
    const step = ARROWS[e.key];
    if (!step) return;
    e.preventDefault();
    const [dx, dy] = step;
    const delta: CellChange = e.shiftKey ? { dw: dx, dh: dy } : { dx, dy };
    change((s) => changeCell(s, section, cell.i, delta));
  };

  const start = (resize: boolean) => (e: PointerEvent): void => {
    const grid = (e.currentTarget as HTMLElement).closest('.grid') as HTMLElement | null;
    if (!grid || e.button !== 0) return;
    const gap = parseFloat(getComputedStyle(grid).columnGap) || 0;
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    drag.current = { startX: e.clientX, startY: e.clientY, col: (grid.clientWidth + gap) / 24, row: rowHeight + gap, from: cell, base: spec, resize };
    e.preventDefault();
  };
  const move = (e: PointerEvent): void => {
    const d = drag.current;
    if (!d) return;
    const dx = Math.round((e.clientX - d.startX) / d.col);
    const dy = Math.round((e.clientY - d.startY) / d.row);
    const to = d.resize ? { ...d.from, w: d.from.w + dx, h: d.from.h + dy } : { ...d.from, x: d.from.x + dx, y: d.from.y + dy };
    change(() => placeCell(d.base, section, cell.i, to));
  };
  const end = (): void => {
    drag.current = undefined;
  };

  return (
    <>
      <div class="cell-edit">
        <button
          class="small move-handle"
          aria-label={`Move or resize ${panel.title}: ${where}. Arrow keys move, Shift and arrow keys resize.`}
          aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown Shift+ArrowLeft Shift+ArrowRight Shift+ArrowUp Shift+ArrowDown"
          title="Drag to move; arrow keys move, Shift+arrow keys resize"
          onKeyDown={onKeyDown}
          onPointerDown={start(false)}
          onPointerMove={move}
          onPointerUp={end}
          onPointerCancel={end}
        >
          ✥ Move
        </button>
        <button class="small" aria-label={`Edit ${panel.title}`} onClick={() => setDialog({ kind: 'panel', section, panelId: cell.i })}>
          Edit
        </button>
        <button class="small danger" aria-label={`Remove ${panel.title}`} onClick={() => change((s) => removePanel(s, cell.i))}>
          Remove
        </button>
      </div>
      <div class="resize-grip" aria-hidden="true" onPointerDown={start(true)} onPointerMove={move} onPointerUp={end} onPointerCancel={end} />
    </>
  );
}
