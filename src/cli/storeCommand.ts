import { loadConfig } from '../config.js';
import { openMetaStores } from '../metaStores.js';
import { MetaConflictError, MetaNotFoundError, type MetaStore, type Org } from '../meta/types.js';
import { UsageError, type OptionValues } from './command.js';

/**
 * What the commands that manage the metadata store share: the --data-dir and --json options,
 * opening the store for one action (store errors become usage errors), finding an org by id or
 * name, and printing either JSON or an aligned text table.
 */

export const DATA_DIR_OPTION = {
  type: 'string',
  valueName: 'DIR',
  description: 'Data directory (default: $SVC_DATA_DIR or ./data); with SVC_META_STORE=postgres the commands use the SVC_POSTGRES_ database instead.',
} as const;

export const JSON_OPTION = { type: 'boolean', description: 'Print machine-readable JSON.' } as const;

/**
 * withStore opens the metadata store for one CLI action: the one SVC_META_STORE names, as the
 * server does, so with `postgres` the command changes what every replica sees. Only the
 * settings that choose and reach the store are read; --data-dir overrides SVC_DATA_DIR.
 */
export async function withStore<T>(values: OptionValues, fn: (store: MetaStore) => Promise<T>): Promise<T> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => STORE_SETTINGS.test(name)));
  if (typeof values['data-dir'] === 'string') env.SVC_DATA_DIR = values['data-dir'];
  const stores = await openMetaStores(loadConfig(env), { watchChanges: false, catalog: false });
  const store = stores.meta;
  try {
    return await fn(store);
  } catch (err) {
    if (err instanceof MetaConflictError || err instanceof MetaNotFoundError) throw new UsageError(err.message);
    throw err;
  } finally {
    await stores.close();
  }
}

/** STORE_SETTINGS are the variables that choose and reach the metadata store. */
const STORE_SETTINGS = /^SVC_(DATA_DIR|META_STORE|POSTGRES_\w+)$/;

/** findOrg resolves an org given by id (any case) or by exact name. */
export async function findOrg(store: MetaStore, ref: string | undefined): Promise<Org> {
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
