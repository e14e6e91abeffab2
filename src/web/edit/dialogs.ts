/**
 * EditDialog is the dialog open in edit mode, if any: the panel editor (for a panel of a
 * section, or a new one in it), the dashboard settings, or the whole spec as JSON. The view
 * holds it so a cell's Edit button and the toolbar open the same dialogs.
 */
export type EditDialog = { kind: 'panel'; section: number; panelId?: string } | { kind: 'settings' } | { kind: 'json' };
