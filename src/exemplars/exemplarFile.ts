import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ExemplarStore, type ExemplarSnapshot } from '../../engine/index.js';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../meta/atomicFile.js';

/**
 * The exemplar store's side file, `<dataDir>/exemplars.json`: written when the service stops
 * and read when it starts, so exemplars survive a clean restart without going through the WAL
 * (a crash loses those written since the last stop). A missing or unreadable file starts the
 * store empty: exemplars are examples, not data a query depends on.
 */
export const EXEMPLAR_FILE = 'exemplars.json';

/** openExemplarStore makes the store with `maxPerOrg` and fills it from the side file if there is one. */
export async function openExemplarStore(dataDir: string, maxPerOrg: number, log: Logger): Promise<ExemplarStore> {
  const store = new ExemplarStore(maxPerOrg);
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, EXEMPLAR_FILE), 'utf8');
  } catch {
    return store;
  }
  try {
    store.restore(JSON.parse(text) as ExemplarSnapshot);
  } catch (err) {
    log.warn({ err }, 'exemplar file unreadable; starting without exemplars');
  }
  return store;
}

/** saveExemplarStore writes the side file (atomically); with no exemplars it removes it. */
export async function saveExemplarStore(dataDir: string, store: ExemplarStore): Promise<void> {
  const file = path.join(dataDir, EXEMPLAR_FILE);
  const snapshot = store.snapshot();
  if (Object.keys(snapshot).length === 0) {
    await fs.rm(file, { force: true });
    return;
  }
  await writeFileAtomic(file, JSON.stringify(snapshot));
}
