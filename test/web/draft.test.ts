import { describe, expect, it } from 'vitest';
import type { DashboardSpec, Panel } from '../../src/dashboards/types.js';
import { addPanel, changeCell, changedCell, freePanelId, kindOptions, placeCell, removePanel, removeSection } from '../../src/web/edit/draft.js';

/**
 * The edits of the app's dashboard editor: cells stay on the 24-column grid and at least one
 * unit in size, new panels get free ids and a place below the section's cells, removals leave
 * no dangling cells or panels, and no edit changes the spec it was given.
 */

function spec(): DashboardSpec {
  return {
    duration: '1h',
    panels: {
      a: { id: 'a', kind: 'stat', title: 'A', queries: [{ query: 'up' }], calculation: 'last' } as Panel,
      b: { id: 'b', kind: 'timeseries', title: 'B', queries: [{ query: 'up' }] } as Panel,
    },
    sections: [
      { title: 'One', cells: [{ i: 'a', x: 0, y: 0, w: 8, h: 4 }, { i: 'b', x: 8, y: 0, w: 16, h: 6 }] },
      { title: 'Two', cells: [{ i: 'b', x: 0, y: 0, w: 24, h: 4 }] },
    ],
  };
}

describe('dashboard draft edits', () => {
  it('keeps moved and resized cells on the grid', () => {
    const cell = { i: 'a', x: 20, y: 0, w: 4, h: 2 };
    expect(changedCell(cell, { dx: 3 })).toEqual({ ...cell, x: 20 });
    expect(changedCell(cell, { dx: -30, dy: -1 })).toEqual({ ...cell, x: 0, y: 0 });
    expect(changedCell(cell, { dw: 10 })).toEqual({ ...cell, x: 10, w: 14 });
    expect(changedCell(cell, { dw: -10, dh: -10 })).toEqual({ ...cell, w: 1, h: 1 });
    expect(changedCell({ ...cell, w: 40 }, {})).toEqual({ ...cell, x: 0, w: 24 });
  });

  it('changes only the named cell of the named section, leaving the input alone', () => {
    const before = spec();
    const copy = JSON.parse(JSON.stringify(before)) as DashboardSpec;
    const after = changeCell(before, 0, 'b', { dy: 2, dw: -4 });
    expect(after.sections[0].cells[1]).toEqual({ i: 'b', x: 8, y: 2, w: 12, h: 6 });
    expect(after.sections[1].cells[0]).toEqual(before.sections[1].cells[0]);
    expect(placeCell(before, 1, 'b', { i: 'b', x: 5, y: 1, w: 30, h: 2 }).sections[1].cells[0]).toEqual({ i: 'b', x: 0, y: 1, w: 24, h: 2 });
    expect(before).toEqual(copy);
  });

  it('adds a panel under a free id below the section', () => {
    const s = spec();
    s.panels['new-panel'] = { ...s.panels.a, id: 'new-panel' };
    expect(freePanelId(s, 'New panel')).toBe('new-panel-2');
    expect(freePanelId(s, '  ***  ')).toBe('panel');
    const { spec: after, id } = addPanel(s, 0, { id: '', kind: 'gauge', title: 'New panel', queries: [{ query: 'x' }] } as Panel);
    expect(id).toBe('new-panel-2');
    expect(after.panels[id]).toMatchObject({ id, kind: 'gauge' });
    expect(after.sections[0].cells.at(-1)).toEqual({ i: id, x: 0, y: 6, w: 12, h: 8 });
  });

  it('removes panels with their cells, and sections with the panels only they show', () => {
    const withoutA = removePanel(spec(), 'a');
    expect(Object.keys(withoutA.panels)).toEqual(['b']);
    expect(withoutA.sections[0].cells.map((c) => c.i)).toEqual(['b']);
    const withoutOne = removeSection(spec(), 0);
    expect(withoutOne.sections.map((s) => s.title)).toEqual(['Two']);
    expect(Object.keys(withoutOne.panels)).toEqual(['b']);
  });

  it("separates a panel's kind options from the fields the editor has inputs for", () => {
    expect(kindOptions(spec().panels.a)).toEqual({ calculation: 'last' });
  });
});
