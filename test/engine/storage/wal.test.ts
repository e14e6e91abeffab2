import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Wal, type WalCorruption } from '../../../engine/storage/wal.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('write-ahead log', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-wal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replays every acknowledged record in order after reopening', async () => {
    const { wal } = await Wal.open({ dir });
    await Promise.all(Array.from({ length: 200 }, (_, i) => wal.append(enc(`record-${i}`))));
    await wal.append(enc('last'));
    await wal.close();
    const { wal: again, records: recordsRead } = await Wal.open({ dir });
    const records = await readAll(recordsRead);
    expect(records.map(dec)).toEqual([...Array.from({ length: 200 }, (_, i) => `record-${i}`), 'last']);
    await again.close();
  });

  it('shares flushes between concurrent appends (group commit)', async () => {
    const { wal } = await Wal.open({ dir });
    const datasync = vi_spy(wal);
    await Promise.all(Array.from({ length: 100 }, (_, i) => wal.append(enc(`r${i}`))));
    expect(datasync.count).toBeLessThan(10);
    await wal.close();
  });

  it('moves to a new file past the segment size and replays across files', async () => {
    const { wal } = await Wal.open({ dir, segmentBytes: 1024 });
    for (let i = 0; i < 50; i++) await wal.append(enc(`x`.repeat(100) + i));
    await wal.close();
    expect((await fs.readdir(dir)).length).toBeGreaterThan(3);
    const { wal: again, records: recordsRead } = await Wal.open({ dir });
    const records = await readAll(recordsRead);
    expect(records).toHaveLength(50);
    expect(dec(records[49])).toBe('x'.repeat(100) + 49);
    await again.close();
  });

  it('cuts a torn tail, reports it, and keeps everything before it', async () => {
    const { wal } = await Wal.open({ dir });
    for (let i = 0; i < 10; i++) await wal.append(enc(`r${i}`));
    await wal.close();
    const file = path.join(dir, (await fs.readdir(dir)).sort().at(-1)!);
    const full = await fs.readFile(file);
    await fs.writeFile(file, full.subarray(0, full.length - 3));
    const seen: WalCorruption[] = [];
    const { wal: again, records: recordsRead } = await Wal.open({ dir, onCorruption: (c) => seen.push(c) });
    const records = await readAll(recordsRead);
    expect(records.map(dec)).toEqual(Array.from({ length: 9 }, (_, i) => `r${i}`));
    expect(seen).toHaveLength(1);
    expect(seen[0].reason).toMatch(/^truncated/);
    await again.append(enc('after'));
    await again.close();
    const { wal: third, records: finalRead } = await Wal.open({ dir });
    const final = await readAll(finalRead);
    expect(final.map(dec).slice(-2)).toEqual(['r8', 'after']);
    await third.close();
  });

  it('drops the rest of a file at a flipped byte but keeps later files', async () => {
    const { wal } = await Wal.open({ dir, segmentBytes: 200 });
    for (let i = 0; i < 30; i++) await wal.append(enc(`record-number-${i}`));
    await wal.close();
    const files = (await fs.readdir(dir)).sort();
    const victim = path.join(dir, files[0]);
    const data = await fs.readFile(victim);
    data[data.length - 2] ^= 0xff;
    await fs.writeFile(victim, data);
    const seen: WalCorruption[] = [];
    const { wal: again, records: recordsRead } = await Wal.open({ dir, onCorruption: (c) => seen.push(c) });
    const records = await readAll(recordsRead);
    expect(seen.map((c) => c.reason)).toEqual(['checksum mismatch']);
    const got = records.map(dec);
    expect(got).toContain('record-number-29');
    expect(got.length).toBe(29);
    await again.close();
  });

  it('reads only the files from the given index, and each only when replay reaches it', async () => {
    const { wal } = await Wal.open({ dir, segmentBytes: 120 });
    for (let i = 0; i < 30; i++) await wal.append(enc(`record-number-${i}`));
    await wal.close();
    const files = (await fs.readdir(dir)).sort();
    expect(files.length).toBeGreaterThan(4);
    const firstIndex = Number(files[0].slice(0, 10));
    // A damaged file below the index is covered by segments: it is neither read nor reported.
    await fs.writeFile(path.join(dir, files[0]), 'not a log');
    const seen: WalCorruption[] = [];
    const { wal: again, records: lazy } = await Wal.open({ dir, onCorruption: (c) => seen.push(c) }, firstIndex + 1);
    // Damage a later file after open: it is read when replay gets to it, not before.
    const victim = path.join(dir, files[2]);
    const data = await fs.readFile(victim);
    data[data.length - 2] ^= 0xff;
    await fs.writeFile(victim, data);
    const got = (await readAll(lazy)).map(dec);
    expect(seen.map((c) => [path.basename(c.file), c.reason])).toEqual([[files[2], 'checksum mismatch']]);
    expect(got).not.toContain('record-number-0');
    expect(got).toContain('record-number-29');
    await again.close();
  });

  it('starts a fresh file after rotate and removes covered files', async () => {
    const { wal } = await Wal.open({ dir });
    await wal.append(enc('old'));
    const cut = await wal.rotate();
    await wal.append(enc('new'));
    await wal.removeBefore(cut);
    await wal.close();
    const { wal: again, records: recordsRead } = await Wal.open({ dir });
    const records = await readAll(recordsRead);
    expect(records.map(dec)).toEqual(['new']);
    await again.close();
  });
});

/** readAll takes every record replay gives. */
async function readAll(records: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const record of records) all.push(record);
  return all;
}

/** vi_spy counts fdatasync calls on the WAL's current file handle. */
function vi_spy(wal: Wal): { count: number } {
  const counter = { count: 0 };
  const handle = (wal as unknown as { handle: { datasync: () => Promise<void> } }).handle;
  const original = handle.datasync.bind(handle);
  handle.datasync = async () => {
    counter.count++;
    await original();
  };
  return counter;
}
