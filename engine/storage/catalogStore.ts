import { promises as fs } from 'node:fs';
import path from 'node:path';
import { syncDirectory } from './blobStore.js';
import { CATALOG_VERSION, type CatalogState, type SegmentMeta } from './catalog.js';
import type { MetricMetadataRecord } from './walCodec.js';

/**
 * CatalogStore persists the catalog as one document, replaced atomically on every update:
 * either the old or the new state is what a crash leaves. The embedded back end keeps it in a
 * JSON file; a scaled-out deployment can keep it in PostgreSQL (one row updated in a
 * transaction) without the storage code changing.
 */
export interface CatalogStore {
  /** load returns the stored state, or undefined when none was ever saved. */
  load(): Promise<CatalogState | undefined>;
  /** save replaces the stored state durably before it resolves. */
  save(state: CatalogState): Promise<void>;
  /**
   * version, where the store can tell cheaply, is a token that changes with every save, so a
   * reader that only follows the catalog (a query process) reloads it only when it changed.
   * Undefined means unknown: reload.
   */
  version?(): Promise<string | undefined>;
}

/** CatalogError means the stored catalog cannot be trusted; start-up stops rather than lose track of segments. */
export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

/** FileCatalogStore writes the catalog to a temporary file, fsyncs it, and renames it over the old one. */
export class FileCatalogStore implements CatalogStore {
  constructor(readonly file: string) {}

  async load(): Promise<CatalogState | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return parseCatalog(text, this.file);
  }

  async save(state: CatalogState): Promise<void> {
    const dir = path.dirname(this.file);
    await fs.mkdir(dir, { recursive: true });
    const temp = `${this.file}.tmp`;
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(JSON.stringify(state));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, this.file);
    await syncDirectory(dir);
  }
}

/** parseCatalog checks the document's shape enough that a damaged or foreign file is refused, not half-used. */
export function parseCatalog(text: string, source: string): CatalogState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CatalogError(`${source}: catalog is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const state = value as Partial<CatalogState> | null;
  if (state === null || typeof state !== 'object' || !Array.isArray(state.segments) || typeof state.walCheckpoint !== 'number' || typeof state.nextSegmentId !== 'number') {
    throw new CatalogError(`${source}: not a segment catalog`);
  }
  if (state.version !== CATALOG_VERSION) throw new CatalogError(`${source}: unsupported catalog version ${String(state.version)}`);
  const positions = state.logPositions;
  if (positions !== undefined && (positions === null || typeof positions !== 'object' || Object.values(positions).some((p) => typeof p !== 'number'))) {
    throw new CatalogError(`${source}: logPositions is not a map of partition to position`);
  }
  return {
    version: state.version,
    walCheckpoint: state.walCheckpoint,
    nextSegmentId: state.nextSegmentId,
    segments: state.segments,
    metricMetadata: state.metricMetadata ?? {},
    ...(positions === undefined ? {} : { logPositions: positions }),
    ...(typeof state.logIdentity === 'string' ? { logIdentity: state.logIdentity } : {}),
  };
}

/** MemoryCatalogStore keeps the catalog in memory: for tests and for a store that needs no persistence. */
export class MemoryCatalogStore implements CatalogStore {
  private text: string | undefined;

  async load(): Promise<CatalogState | undefined> {
    return this.text === undefined ? undefined : parseCatalog(this.text, 'memory');
  }

  async save(state: CatalogState): Promise<void> {
    this.text = JSON.stringify(state);
  }
}

/**
 * SharedCatalogChange is one atomic update of a catalog that several processes write at once
 * (scaled out: ingesters add segments, the compactor replaces and deletes them). Unlike a whole
 * state, it names only what this process changes, so writers never undo each other.
 */
export interface SharedCatalogChange {
  add?: readonly SegmentMeta[];
  /** remove lists segments that must all still be there; if one is gone the change is refused (CatalogConflictError). */
  remove?: readonly number[];
  /**
   * logPositions sets, per partition, how far the segments cover the write log. They are
   * fenced: the store writes them only while this process holds those partitions, and refuses
   * the whole change otherwise (PartitionsLostError), so two owners never both record one
   * partition's data.
   */
  logPositions?: Readonly<Record<string, number>>;
  /** metricMetadata is merged by org and metric name into what the catalog holds. */
  metricMetadata?: Readonly<Record<string, readonly MetricMetadataRecord[]>>;
}

/**
 * SharedCatalogStore is a CatalogStore that several processes write through changes rather
 * than whole states (PostgreSQL when scaled out). Segment ids come from the store, so files
 * written by different processes never share a name.
 */
export interface SharedCatalogStore extends CatalogStore {
  /** reserveSegmentIds reserves `count` fresh ids and returns the first; the rest follow it. */
  reserveSegmentIds(count: number): Promise<number>;
  apply(change: SharedCatalogChange): Promise<void>;
  /** logPositions reads the recorded positions of `partitions` (0 for one never recorded). */
  logPositions(partitions: readonly number[]): Promise<Record<string, number>>;
  /**
   * adoptLogIdentity records the write log's identity; when the catalog holds positions of
   * another log (it was recreated) they are cleared and true is returned.
   */
  adoptLogIdentity(identity: string): Promise<boolean>;
}

/** CatalogConflictError means a shared change found the catalog changed under it (a segment it removes is gone). */
export class CatalogConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogConflictError';
  }
}

/** PartitionsLostError means this process no longer holds the partitions whose positions it tried to record. */
export class PartitionsLostError extends Error {
  constructor(readonly partitions: number[]) {
    super(`write log partitions ${partitions.join(', ')} are no longer held by this process`);
    this.name = 'PartitionsLostError';
  }
}
