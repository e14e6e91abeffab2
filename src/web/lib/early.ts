/**
 * index.html starts the session request, and on a dashboard's page the dashboard request,
 * before the app's script has arrived, so those round trips overlap its download and start-up.
 * The app takes each answer once; a missing or failed one (null) makes it ask the ordinary way,
 * which reports errors (401, 404) as usual.
 */

interface EarlyRequests {
  session?: Promise<unknown>;
  dashboardId?: string;
  dashboard?: Promise<unknown>;
}

function early(): EarlyRequests {
  return ((window as unknown as { __sluiceEarly?: EarlyRequests }).__sluiceEarly ??= {});
}

/** takeEarlySession gives the early session answer once, or undefined. */
export async function takeEarlySession<T>(): Promise<T | undefined> {
  const e = early();
  const pending = e.session;
  e.session = undefined;
  return ((await pending) ?? undefined) as T | undefined;
}

/** takeEarlyDashboard gives the early answer for dashboard `id` once, or undefined. */
export async function takeEarlyDashboard<T>(id: string): Promise<T | undefined> {
  const e = early();
  if (e.dashboardId !== id) return undefined;
  const pending = e.dashboard;
  e.dashboard = undefined;
  e.dashboardId = undefined;
  return ((await pending) ?? undefined) as T | undefined;
}

/** ORG_KEY names the localStorage entry where index.html finds the org to ask for a dashboard in at once. */
const ORG_KEY = 'sluice-org';

/** rememberOrg keeps the signed-in org for the next page load's early dashboard request; undefined forgets it. */
export function rememberOrg(org: string | undefined): void {
  try {
    if (org === undefined) localStorage.removeItem(ORG_KEY);
    else localStorage.setItem(ORG_KEY, org);
  } catch {
    // Storage may be off (private modes): the early request then waits for the session.
  }
}
