import type { DashboardListQuery, DashboardPage, DashboardSummary } from './types.js';

/**
 * One listing rule for every metadata store backend: dashboards sorted by name ignoring case
 * with numbers in numeric order ("gamma 9" before "gamma 10"), then by id; filtered by a name
 * fragment and a category, both ignoring case. Keeping it in one place is what makes a listing
 * read the same from files and from PostgreSQL.
 */

const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** compareDashboards orders two listing rows. */
export function compareDashboards(a: DashboardSummary, b: DashboardSummary): number {
  return byName.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** pageDashboards filters, sorts and pages an org's listing rows. */
export function pageDashboards(rows: readonly DashboardSummary[], query: DashboardListQuery): DashboardPage {
  const name = query.name?.toLowerCase();
  const category = query.category?.toLowerCase();
  const matches = rows.filter((d) => (name === undefined || d.name.toLowerCase().includes(name)) && (category === undefined || d.category.toLowerCase() === category));
  matches.sort(compareDashboards);
  return { total: matches.length, items: matches.slice(query.offset, query.offset + query.limit) };
}
