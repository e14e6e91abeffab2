/**
 * User Timing marks of the app's milestones, so a benchmark (or anyone in the browser's
 * performance panel) can read how long after navigation each one came: `app-start` when the
 * app's script runs, `dashboard-loaded` when a dashboard's spec arrived, and
 * `panel-drawn:<panel id>` when a panel has drawn its first complete result (or its error).
 * Each is marked once per page load; later refreshes are not first draws.
 */

const marked = new Set<string>();

function markOnce(name: string): void {
  if (marked.has(name)) return;
  marked.add(name);
  performance.mark(name);
}

export function markAppStart(): void {
  markOnce('app-start');
}

export function markDashboardLoaded(): void {
  markOnce('dashboard-loaded');
}

export function markPanelDrawn(panelId: string): void {
  markOnce(`panel-drawn:${panelId}`);
}
