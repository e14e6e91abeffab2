import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../packageRoot.js';

/** EXAMPLES_DIR holds the example dashboards, which query exactly what the demo writes. */
export const EXAMPLES_DIR = path.join(packageRoot(), 'examples', 'dashboards');

/**
 * loadExampleDashboards creates every example dashboard in the org through the dashboards API,
 * with its file name as id (the examples link to each other by id), so a newcomer sees the
 * demo data drawn from the first start. An install without the examples directory (a
 * container image) has nothing to load, and an id the org already uses is left alone. Returns
 * the ids it created.
 */
export async function loadExampleDashboards(url: string, key: string, orgId: string): Promise<string[]> {
  if (!existsSync(EXAMPLES_DIR)) return [];
  const created: string[] = [];
  for (const file of readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json')).sort()) {
    const id = file.replace(/\.json$/, '');
    const name = id.charAt(0).toUpperCase() + id.slice(1).replace(/-/g, ' ');
    const res = await fetch(`${url}/api/orgs/${encodeURIComponent(orgId)}/dashboards?id=${encodeURIComponent(id)}&name=${encodeURIComponent(name)}`, {
      method: 'POST',
      body: readFileSync(path.join(EXAMPLES_DIR, file)),
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
    });
    // A dashboard of that id is the user's own by now: keep it.
    if (res.status === 409) continue;
    if (res.status !== 201) throw new Error(`example dashboard ${id} answered ${res.status}: ${await res.text()}`);
    created.push(id);
  }
  return created;
}
