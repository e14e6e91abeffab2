import type { MetaStore } from '../meta/types.js';
import type { Location } from './issues.js';
import type { DashboardSpec } from './types.js';

/**
 * Interlinks open another dashboard of the same org when someone clicks a series. A link to a
 * dashboard that does not exist is only found by clicking it, so create, replace and validate
 * look the targets up and warn. It is a warning, not an error: dashboards that link to each
 * other have to be created one after the other, and the first one links to a dashboard that is
 * not there yet.
 */

/** DashboardDirectory answers whether the spec's org has a dashboard with an id. */
export interface DashboardDirectory {
  has(id: string): boolean;
}

/** LISTING_PAGE is how many dashboards one listing call reads while looking targets up. */
const LISTING_PAGE = 500;

/**
 * interlinkTargets collects the distinct targetDashboardId values of a spec that has not been
 * checked yet, reading defensively: anything not shaped as the spec says is skipped here and
 * reported by the schema.
 */
export function interlinkTargets(spec: unknown): Set<string> {
  const targets = new Set<string>();
  const panels = isObject(spec) ? spec.panels : undefined;
  if (!isObject(panels)) return targets;
  for (const panel of Object.values(panels)) {
    const links = isObject(panel) ? panel.interlinks : undefined;
    if (!Array.isArray(links)) continue;
    for (const link of links) {
      if (isObject(link) && typeof link.targetDashboardId === 'string') targets.add(link.targetDashboardId);
    }
  }
  return targets;
}

/**
 * loadDashboardDirectory finds which of `targets` exist in the org, counting `selfId` (the
 * dashboard being written, which may link to itself) as existing. It pages through the org's
 * listing and stops as soon as every target is found, so a spec without interlinks costs
 * nothing and an org of thousands of dashboards is read a page at a time.
 */
export async function loadDashboardDirectory(store: MetaStore, orgId: string, targets: ReadonlySet<string>, selfId?: string): Promise<DashboardDirectory> {
  const found = new Set<string>();
  if (selfId !== undefined) found.add(selfId);
  let missing = [...targets].filter((id) => !found.has(id)).length;
  for (let offset = 0; missing > 0; offset += LISTING_PAGE) {
    const page = await store.listDashboards(orgId, { limit: LISTING_PAGE, offset });
    for (const item of page.items) {
      if (targets.has(item.id) && !found.has(item.id)) {
        found.add(item.id);
        missing--;
      }
    }
    if (page.items.length < LISTING_PAGE || offset + page.items.length >= page.total) break;
  }
  return { has: (id) => found.has(id) };
}

/** checkInterlinks reports, through `warn`, every interlink whose target the directory lacks. */
export function checkInterlinks(spec: DashboardSpec, directory: DashboardDirectory, warn: (location: Location, message: string) => void): void {
  for (const [key, panel] of Object.entries(spec.panels)) {
    panel.interlinks?.forEach((link, n) => {
      if (directory.has(link.targetDashboardId)) return;
      warn(
        ['panels', key, 'interlinks', n, 'targetDashboardId'],
        `links to dashboard ${JSON.stringify(link.targetDashboardId)}, which this org does not have; the link will open nothing until that dashboard is created`,
      );
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
