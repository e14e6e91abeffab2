import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Replay decodes records that are views into a whole WAL file's bytes. Once replay is over,
 * nothing may keep that file alive: a server that only serves metrics afterwards would hold
 * tens of MiB for good. The check runs in a child with `--expose-gc`, over the built codec,
 * so that collection can be asked for and its outcome seen through a WeakRef.
 */
const CODEC = pathToFileURL(path.resolve('dist/engine/storage/walCodec.js')).href;

function fileOutlivesDecoding(forget: boolean): boolean {
  const script = `
    const { encodeWalEntry, decodeWalEntry, forgetLastDecoded } = await import(${JSON.stringify(CODEC)});
    const record = encodeWalEntry({ kind: 'logs', org: 'o', records: [{ timestampNs: 1n, message: 'line', level: 'info', tags: { app: 'a' } }] });
    let file = Buffer.alloc(16 * 1024 * 1024);
    record.copy(file, 8);
    const ref = new WeakRef(file.buffer);
    const entry = decodeWalEntry(file.subarray(8, 8 + record.length));
    if (entry.records[0].message !== 'line') throw new Error('record not decoded');
    file = undefined;
    if (${forget}) forgetLastDecoded();
    await new Promise((resolve) => setTimeout(resolve, 0));
    globalThis.gc();
    process.stdout.write(String(ref.deref() !== undefined));
  `;
  return execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' }) === 'true';
}

describe('WAL replay memory', () => {
  it('lets go of the bytes of the last file it read', () => {
    expect(fileOutlivesDecoding(true)).toBe(false);
  });

  it('needs to: the decoder otherwise keeps the last buffer it read', () => {
    // If a msgpackr release stops keeping its last input, this fails and forgetLastDecoded can go.
    expect(fileOutlivesDecoding(false)).toBe(true);
  });
});
