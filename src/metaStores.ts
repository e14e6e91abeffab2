import type { CatalogStore } from '../engine/storage/catalogStore.js';
import type { EventSink } from '../engine/storage/storageEvent.js';
import type { Config } from './config.js';
import { FileMetaStore } from './meta/fileStore.js';
import type { MetaStore } from './meta/types.js';
import type { PostgresDatabase } from './postgres/database.js';

/**
 * MetaStores are the metadata store SVC_META_STORE names and the segment catalog store
 * SVC_CATALOG_STORE names (undefined for `file`: the storage keeps catalog.json in its data
 * directory). When either is PostgreSQL they share one connection pool, and the schema is
 * migrated once, before either is used.
 */
export interface MetaStores {
  meta: MetaStore;
  catalog: CatalogStore | undefined;
  /** database is the PostgreSQL both share, when either is there (leases and locks use it too). */
  database?: PostgresDatabase;
  /** close closes the stores and then the database they share. */
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** watchChanges follows other processes' writes (a server does; a CLI command does not). */
  watchChanges: boolean;
  /** catalog opens the catalog store too. */
  catalog: boolean;
  /** leaseOwner is this process's id as an ingester: the catalog fences recorded positions by it. */
  leaseOwner?: string;
  onEvent?: EventSink;
}

export async function openMetaStores(config: Config, options: OpenStoresOptions): Promise<MetaStores> {
  const wantCatalog = options.catalog && config.catalogStore === 'postgres';
  if (config.metaStore !== 'postgres' && !wantCatalog) {
    const meta = await FileMetaStore.open(config.dataDir, { watchChanges: options.watchChanges });
    return { meta, catalog: undefined, close: () => meta.close() };
  }
  // Loaded only when configured: the CLI's file-store commands should not pay for the driver.
  const [{ PostgresDatabase }, { PostgresMetaStore }, { PostgresCatalogStore }, { postgresSettings }] = await Promise.all([
    import('./postgres/database.js'),
    import('./postgres/metaStore.js'),
    import('./postgres/catalogStore.js'),
    import('./postgres/settings.js'),
  ]);
  const db = await PostgresDatabase.open(postgresSettings(config), options.onEvent);
  try {
    const meta = config.metaStore === 'postgres' ? await PostgresMetaStore.open(db, { watchChanges: options.watchChanges }) : await FileMetaStore.open(config.dataDir, { watchChanges: options.watchChanges });
    const catalog = wantCatalog ? new PostgresCatalogStore(db, config.catalogName, options.leaseOwner) : undefined;
    return {
      meta,
      catalog,
      database: db,
      async close() {
        await meta.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
