import { promises as fsPromises } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { FileMetaStore } from '../../src/meta/fileStore.js';
import { waitFor } from '../support/server.js';

const AT = '2024-05-01T10:00:00.000Z';
let dir = '';

afterEach(async () => {
  vi.restoreAllMocks();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/**
 * The server's store reloads the document when the directory watch reports a write, its own
 * included. On a busy machine that read can still be under way when the server writes again; the
 * older document it returns must not replace the newer one (a key created in that window was
 * refused with 401 until the next reload).
 */
it('keeps its own write when a reload that read the file before it finishes after it', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sluice-meta-reload-'));
  const server = await FileMetaStore.open(dir, { watchChanges: true });
  const cli = await FileMetaStore.open(dir);
  const seen: string[][] = [];
  server.onChange(() => void server.listApiKeys().then((keys) => seen.push(keys.map((k) => k.id))));

  // The next read the server starts outside its own writes is held until the server has written.
  const realRead = fsPromises.readFile.bind(fsPromises);
  let releaseHeld: () => void = () => undefined;
  const written = new Promise<void>((resolve) => (releaseHeld = resolve));
  let holding = false;
  let held = false;
  vi.spyOn(fsPromises, 'readFile').mockImplementation((async (...args: Parameters<typeof fsPromises.readFile>) => {
    const text = await realRead(...args);
    if (holding && !held) {
      held = true;
      await written;
    }
    return text;
  }) as typeof fsPromises.readFile);

  await cli.createOrg({ id: 'org-a', name: 'A', createdAt: AT });
  // The watch's reload starts 20 ms after the write, so it is the next read.
  holding = true;
  await waitFor(() => held, 2000);
  await server.insertApiKey({ id: 'k1', orgId: 'org-a', name: 'k', hash: 'ab'.repeat(32), prefix: 'ababab', createdAt: AT });
  releaseHeld();
  await new Promise((r) => setTimeout(r, 200));

  expect((await server.listApiKeys()).map((k) => k.id)).toEqual(['k1']);
  // No listener ever saw the key vanish after it was written.
  const afterWrite = seen.slice(seen.findIndex((ids) => ids.includes('k1')));
  expect(afterWrite.length).toBeGreaterThan(0);
  expect(afterWrite.every((ids) => ids.includes('k1'))).toBe(true);
  await server.close();
  await cli.close();
});
