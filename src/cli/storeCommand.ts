import { loadConfig } from '../config.js';
import { FileMetaStore } from '../meta/fileStore.js';
import { MetaConflictError, MetaNotFoundError, type Org } from '../meta/types.js';
import { UsageError, type OptionValues } from './command.js';

/**
 * What the commands that manage the metadata store share: the --data-dir and --json options,
 * opening the store for one action (store errors become usage errors), finding an org by id or
 * name, and printing either JSON or an aligned text table.
 */

export const DATA_DIR_OPTION = {
  type: 'string',
  valueName: 'DIR',
  description: 'Data directory (default: $SVC_DATA_DIR or ./data).',
} as const;

export const JSON_OPTION = { type: 'boolean', description: 'Print machine-readable JSON.' } as const;

/** withStore opens the metadata store of the chosen data directory for one CLI action. */
export async function withStore<T>(values: OptionValues, fn: (store: FileMetaStore) => Promise<T>): Promise<T> {
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : loadConfig({ SVC_DATA_DIR: process.env.SVC_DATA_DIR }).dataDir;
  const store = await FileMetaStore.open(dataDir);
  try {
    return await fn(store);
  } catch (err) {
    if (err instanceof MetaConflictError || err instanceof MetaNotFoundError) throw new UsageError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

/** findOrg resolves an org given by id (any case) or by exact name. */
export async function findOrg(store: FileMetaStore, ref: string | undefined): Promise<Org> {
  if (ref === undefined) throw new UsageError('the org is required: its id or its name');
  const orgs = await store.listOrgs();
  const org = orgs.find((o) => o.id === ref.toLowerCase()) ?? orgs.find((o) => o.name === ref);
  if (!org) throw new UsageError(`no org with id or name ${JSON.stringify(ref)}`);
  return org;
}

/** print writes `json` with --json, else `text`. */
export function print(values: OptionValues, json: unknown, text: string): void {
  process.stdout.write(values.json ? JSON.stringify(json, null, 2) + '\n' : text + '\n');
}

/** table aligns rows into columns two spaces apart; the first row is the header. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
