import { GRID_COLUMNS, type DashboardSection, type DashboardSpec, type GridCell, type Panel, type PanelKind } from '../../dashboards/types.js';

/**
 * Edits of a dashboard being changed in the app. Each returns a new spec and leaves its input
 * alone, so the view redraws from the draft and Cancel simply drops it. Cells are kept inside
 * the 24-column grid here; everything else the spec requires is checked by the server on save.
 */

/** Draft is a dashboard under edit: its spec and name, and the version the edit started from. */
export interface Draft {
  spec: DashboardSpec;
  name: string;
  version: number;
}

/** clone copies a spec deeply (it is plain JSON). */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** CellChange moves (dx, dy) or resizes (dw, dh) a cell, in grid units. */
export interface CellChange {
  dx?: number;
  dy?: number;
  dw?: number;
  dh?: number;
}

/** changedCell applies a move or resize, clamped so the cell stays on the grid and at least 1 by 1. */
export function changedCell(cell: GridCell, change: CellChange): GridCell {
  const w = Math.max(1, Math.min(GRID_COLUMNS, cell.w + (change.dw ?? 0)));
  const h = Math.max(1, cell.h + (change.dh ?? 0));
  const x = Math.max(0, Math.min(GRID_COLUMNS - w, cell.x + (change.dx ?? 0)));
  const y = Math.max(0, cell.y + (change.dy ?? 0));
  return { ...cell, x, y, w, h };
}

function withSection(spec: DashboardSpec, index: number, change: (s: DashboardSection) => DashboardSection): DashboardSpec {
  return { ...spec, sections: spec.sections.map((s, i) => (i === index ? change(s) : s)) };
}

/** changeCell moves or resizes the cell of panel `panelId` in section `section`. */
export function changeCell(spec: DashboardSpec, section: number, panelId: string, change: CellChange): DashboardSpec {
  return withSection(spec, section, (s) => ({ ...s, cells: s.cells.map((c) => (c.i === panelId ? changedCell(c, change) : c)) }));
}

/** placeCell sets a cell's position and size outright (a mouse drag ends here), clamped like changedCell. */
export function placeCell(spec: DashboardSpec, section: number, panelId: string, to: GridCell): DashboardSpec {
  return withSection(spec, section, (s) => ({ ...s, cells: s.cells.map((c) => (c.i === panelId ? changedCell(to, {}) : c)) }));
}

/** freePanelId makes an id from the title that no panel of the spec uses yet. */
export function freePanelId(spec: DashboardSpec, title: string): string {
  const base = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'panel';
  let id = base;
  for (let n = 2; spec.panels[id] !== undefined; n++) id = `${base}-${n}`;
  return id;
}

/** NEW_CELL is the size of a new panel: half the grid's width. */
const NEW_CELL = { w: 12, h: 8 };

/** addPanel stores `panel` under a fresh id and puts its cell below everything in the section. */
export function addPanel(spec: DashboardSpec, section: number, panel: Panel): { spec: DashboardSpec; id: string } {
  const id = freePanelId(spec, panel.title);
  const target = spec.sections[section];
  const y = Math.max(0, ...(target?.cells ?? []).map((c) => c.y + c.h));
  const withPanel: DashboardSpec = { ...spec, panels: { ...spec.panels, [id]: { ...panel, id } as Panel } };
  return { spec: withSection(withPanel, section, (s) => ({ ...s, cells: [...s.cells, { i: id, x: 0, y, ...NEW_CELL }] })), id };
}

/** replacePanel stores an edited panel under its id. */
export function replacePanel(spec: DashboardSpec, panel: Panel): DashboardSpec {
  return { ...spec, panels: { ...spec.panels, [panel.id]: panel } };
}

/** removePanel drops a panel and every cell that shows it. */
export function removePanel(spec: DashboardSpec, panelId: string): DashboardSpec {
  const { [panelId]: _removed, ...panels } = spec.panels;
  return { ...spec, panels, sections: spec.sections.map((s) => ({ ...s, cells: s.cells.filter((c) => c.i !== panelId) })) };
}

export function addSection(spec: DashboardSpec, title: string): DashboardSpec {
  return { ...spec, sections: [...spec.sections, { title, cells: [] }] };
}

export function changeSection(spec: DashboardSpec, index: number, change: Partial<Pick<DashboardSection, 'title' | 'defaultCollapsed' | 'rowHeight'>>): DashboardSpec {
  return withSection(spec, index, (s) => {
    const next: DashboardSection = { ...s, ...change };
    if (next.defaultCollapsed === false) delete next.defaultCollapsed;
    if (next.rowHeight === undefined) delete next.rowHeight;
    return next;
  });
}

/** removeSection drops a section with its panels (a panel shown in another section stays). */
export function removeSection(spec: DashboardSpec, index: number): DashboardSpec {
  const gone = spec.sections[index]?.cells.map((c) => c.i) ?? [];
  const sections = spec.sections.filter((_, i) => i !== index);
  const stillShown = new Set(sections.flatMap((s) => s.cells.map((c) => c.i)));
  const panels = Object.fromEntries(Object.entries(spec.panels).filter(([id]) => !gone.includes(id) || stillShown.has(id)));
  return { ...spec, sections, panels };
}

/** newPanel is what the kind picker starts from: a title and one empty query of the kind's language. */
export function newPanel(kind: PanelKind): Panel {
  const logs = kind === 'log-events';
  return { id: '', kind, title: 'New panel', queries: [{ query: '', ...(logs ? { queryKind: 'loki' as const } : {}) }] } as Panel;
}

/** COMMON_FIELDS are edited in the panel editor's own inputs; the rest are the kind's options. */
export const COMMON_FIELDS = ['id', 'kind', 'title', 'description', 'queries'] as const;

/** kindOptions is a panel's kind-specific fields (everything but COMMON_FIELDS). */
export function kindOptions(panel: Panel): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(panel)) if (!(COMMON_FIELDS as readonly string[]).includes(k)) out[k] = v;
  return out;
}
