import { useEffect, useState } from 'preact/hooks';
import { RequestFailure } from '../lib/api.js';
import { CUSTOM_CATEGORY, dashboards, emptySpec, withoutLibraryRef, type DashboardSummary } from '../lib/dashboards.js';
import { linkClick, navigate } from '../lib/router.js';
import { ImportDialog } from './importDialog.js';

/** groupByCategory lists dashboards under their category, Custom for none, categories sorted with Custom last. */
export function groupByCategory(items: DashboardSummary[]): Array<[string, DashboardSummary[]]> {
  const groups = new Map<string, DashboardSummary[]>();
  for (const d of items) {
    const category = d.category?.trim() || CUSTOM_CATEGORY;
    groups.set(category, [...(groups.get(category) ?? []), d]);
  }
  return [...groups.entries()]
    .sort((a, b) => (a[0] === CUSTOM_CATEGORY ? 1 : b[0] === CUSTOM_CATEGORY ? -1 : a[0].localeCompare(b[0])))
    .map(([c, ds]) => [c, ds.sort((x, y) => x.name.localeCompare(y.name))]);
}

/** download saves a dashboard's spec as a JSON file (export), without libraryRef. */
async function download(org: string, summary: DashboardSummary): Promise<void> {
  const record = await dashboards.get(org, summary.id);
  const blob = new Blob([JSON.stringify(withoutLibraryRef(record.spec), null, 2)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${record.id}.json`;
  a.click();
  URL.revokeObjectURL(a.href);
}

/** DashboardList is the Dashboards page: by category, searchable, with create, import, export and delete. */
export function DashboardList({ org }: { org: string }) {
  const [items, setItems] = useState<DashboardSummary[]>();
  const [error, setError] = useState<string>();
  const [search, setSearch] = useState('');
  const [importing, setImporting] = useState(false);
  const load = (): void => {
    dashboards.list(org).then(
      (page) => setItems(page.items),
      (err: unknown) => setError(err instanceof RequestFailure ? err.message : String(err)),
    );
  };
  useEffect(load, [org]);

  const create = async (): Promise<void> => {
    const name = window.prompt('Name of the new dashboard', 'New dashboard');
    if (!name) return;
    try {
      const record = await dashboards.create(org, emptySpec(), name);
      navigate(`/dashboards/${encodeURIComponent(record.id)}`);
    } catch (err) {
      setError(err instanceof RequestFailure ? err.message : String(err));
    }
  };
  const remove = async (record: DashboardSummary): Promise<void> => {
    if (!window.confirm(`Delete the dashboard "${record.name}"?`)) return;
    try {
      await dashboards.remove(org, record.id);
      load();
    } catch (err) {
      setError(err instanceof RequestFailure ? err.message : String(err));
    }
  };

  const needle = search.trim().toLowerCase();
  const shown = (items ?? []).filter((d) => needle === '' || d.name.toLowerCase().includes(needle) || d.id.toLowerCase().includes(needle) || (d.category ?? '').toLowerCase().includes(needle));
  return (
    <main class="page dashboards-page">
      <div class="toolbar">
        <h1>Dashboards</h1>
        <label class="visually-hidden" for="dashboard-search">
          Search dashboards
        </label>
        <input id="dashboard-search" type="search" placeholder="Search dashboards" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button onClick={create}>New dashboard</button>
        <button onClick={() => setImporting(true)}>Import from JSON</button>
      </div>
      {error && (
        <p class="panel-error" role="alert">
          {error}
        </p>
      )}
      {items === undefined && !error && <p class="muted">Loading…</p>}
      {items !== undefined && shown.length === 0 && <p class="empty">No dashboards{needle ? ' match the search' : ' yet: create one or import a spec'}.</p>}
      {groupByCategory(shown).map(([category, list]) => (
        <section class="category" key={category} aria-labelledby={`cat-${category}`}>
          <h2 id={`cat-${category}`}>{category}</h2>
          <ul class="dashboard-list">
            {list.map((d) => (
              <li key={d.id}>
                <a href={`/dashboards/${encodeURIComponent(d.id)}`} onClick={linkClick} class="dashboard-link">
                  {d.name}
                </a>
                <span class="muted">{d.updatedAt ? `updated ${new Date(d.updatedAt).toLocaleString()}` : ''}</span>
                <button class="small" onClick={() => download(org, d).catch((err: unknown) => setError(String(err)))} aria-label={`Export ${d.name}`}>
                  Export
                </button>
                <button class="small danger" onClick={() => remove(d)} aria-label={`Delete ${d.name}`}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {importing && (
        <ImportDialog
          org={org}
          onClose={() => setImporting(false)}
          onCreated={(id) => {
            setImporting(false);
            navigate(`/dashboards/${encodeURIComponent(id)}`);
          }}
        />
      )}
    </main>
  );
}
