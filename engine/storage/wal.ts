import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * Wal is the write-ahead log: the only thing that must reach disk before a write is
 * acknowledged. Records are framed `[u32 length][u32 crc32][payload]` in numbered files that
 * start with a magic header. Appends made while a flush is running wait for the next one, so
 * concurrent writers share a single write + fdatasync (group commit) instead of each paying
 * for their own.
 *
 * On replay, every file is checked frame by frame. A torn tail (a crash mid-write) is cut off;
 * a corrupt frame in an older file drops the rest of that file only. Either way the problem is
 * reported through `onCorruption` and start-up goes on with everything that is intact.
 */

const MAGIC = Buffer.from('SLWAL\0\0\x01', 'latin1');
const FRAME_HEADER = 8;
/** MAX_RECORD bounds a frame's length field so a corrupt length cannot trigger a huge read. */
const MAX_RECORD = 256 * 1024 * 1024;

export interface WalCorruption {
  file: string;
  offset: number;
  droppedBytes: number;
  reason: string;
}

export interface WalOptions {
  dir: string;
  /** segmentBytes is the size after which appends move to a new file. */
  segmentBytes?: number;
  onCorruption?: (c: WalCorruption) => void;
}

function fileName(index: number): string {
  return `${String(index).padStart(10, '0')}.wal`;
}

function fileIndex(name: string): number | undefined {
  const m = /^(\d{10})\.wal$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

interface ScanResult {
  records: Buffer[];
  /** validBytes is the length of the intact prefix of the file. */
  validBytes: number;
  reason?: string;
}

/** scanFile returns the intact records of one WAL file and where the intact part ends. */
function scanFile(data: Buffer): ScanResult {
  if (data.length < MAGIC.length || !data.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { records: [], validBytes: 0, reason: data.length === 0 ? 'empty file' : 'bad file header' };
  }
  const records: Buffer[] = [];
  let offset = MAGIC.length;
  while (offset < data.length) {
    if (data.length - offset < FRAME_HEADER) return { records, validBytes: offset, reason: 'truncated frame header' };
    const length = data.readUInt32LE(offset);
    const checksum = data.readUInt32LE(offset + 4);
    if (length > MAX_RECORD) return { records, validBytes: offset, reason: `implausible record length ${length}` };
    const end = offset + FRAME_HEADER + length;
    if (end > data.length) return { records, validBytes: offset, reason: 'truncated record' };
    const payload = data.subarray(offset + FRAME_HEADER, end);
    if (crc32(payload) !== checksum) return { records, validBytes: offset, reason: 'checksum mismatch' };
    records.push(payload);
    offset = end;
  }
  return { records, validBytes: offset };
}

export class Wal {
  private handle: fs.FileHandle | undefined;
  private currentIndex = 0;
  private currentSize = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly segmentBytes: number;

  private constructor(private readonly options: WalOptions) {
    this.segmentBytes = options.segmentBytes ?? 64 * 1024 * 1024;
  }

  /**
   * open starts the log on a fresh file and returns it with the records of files numbered
   * `fromIndex` and later, in order, for replay. The records are read one file at a time as
   * replay asks for them, each file checked and repaired as it is read, so start-up holds one
   * file in memory rather than the whole log (files of 64 MiB by default; a log hours behind
   * its segments can be many). Files below `fromIndex` are covered by segments and not read.
   */
  static async open(options: WalOptions, fromIndex = 0): Promise<{ wal: Wal; records: AsyncIterable<Buffer> }> {
    const wal = new Wal(options);
    await fs.mkdir(options.dir, { recursive: true });
    const indexes = (await fs.readdir(options.dir))
      .map(fileIndex)
      .filter((i): i is number => i !== undefined)
      .sort((a, b) => a - b);
    // Appends always go to a fresh file: never write after bytes that may need repair.
    wal.currentIndex = (indexes.length > 0 ? indexes[indexes.length - 1] : 0) + 1;
    await wal.openCurrent();
    return { wal, records: readFiles(options, indexes.filter((i) => i >= fromIndex)) };
  }

  /** index is the number of the file appends currently go to. */
  get index(): number {
    return this.currentIndex;
  }

  private async openCurrent(): Promise<void> {
    const file = path.join(this.options.dir, fileName(this.currentIndex));
    this.handle = await fs.open(file, 'w');
    await this.handle.write(MAGIC);
    await this.handle.datasync();
    this.currentSize = MAGIC.length;
    await syncDir(this.options.dir);
  }

  /** append resolves once `payload` is on disk (after fdatasync). */
  append(payload: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new Error('write-ahead log is closed'));
    if (payload.length > MAX_RECORD) return Promise.reject(new Error(`record of ${payload.length} bytes exceeds the WAL limit`));
    const header = Buffer.allocUnsafe(FRAME_HEADER);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32(payload), 4);
    this.pending.push(header, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
    this.pendingBytes += FRAME_HEADER + payload.length;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flushLoop();
    return done;
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const buffers = this.pending;
      const bytes = this.pendingBytes;
      const waiters = this.waiters;
      this.pending = [];
      this.pendingBytes = 0;
      this.waiters = [];
      try {
        if (this.currentSize > MAGIC.length && this.currentSize + bytes > this.segmentBytes) await this.switchFile();
        await writeAll(this.handle!, buffers);
        await this.handle!.datasync();
        this.currentSize += bytes;
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
    }
    this.flushing = undefined;
  }

  private async switchFile(): Promise<void> {
    await this.handle?.close();
    this.currentIndex++;
    await this.openCurrent();
  }

  /**
   * rotate finishes the current file and starts a new one, returning the new file's index:
   * every record appended before the call lives in a file with a smaller index. The head uses
   * this to mark the point up to which a cut into segments covers the log.
   */
  async rotate(): Promise<number> {
    await this.flushing;
    await this.switchFile();
    return this.currentIndex;
  }

  /** removeBefore deletes files whose records are all older than file `index`. */
  async removeBefore(index: number): Promise<void> {
    for (const name of await fs.readdir(this.options.dir)) {
      const i = fileIndex(name);
      if (i !== undefined && i < index && i !== this.currentIndex) await fs.rm(path.join(this.options.dir, name), { force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    await this.handle?.close();
    this.handle = undefined;
  }
}

/**
 * readFiles yields the intact records of the given files in order, reading each file only when
 * the previous one's records are consumed. A damaged file is reported and cut back to its
 * intact prefix (or removed when not even its header is intact) before its records are given.
 */
async function* readFiles(options: WalOptions, indexes: number[]): AsyncGenerator<Buffer> {
  for (const index of indexes) {
    const file = path.join(options.dir, fileName(index));
    const data = await fs.readFile(file);
    const scan = scanFile(data);
    if (scan.reason !== undefined && !(scan.reason === 'empty file' && data.length === 0)) {
      options.onCorruption?.({ file, offset: scan.validBytes, droppedBytes: data.length - scan.validBytes, reason: scan.reason });
    }
    if (scan.validBytes < data.length || data.length === 0) {
      if (scan.validBytes < MAGIC.length) await fs.rm(file);
      else await fs.truncate(file, scan.validBytes);
    }
    yield* scan.records;
  }
}

/** writeAll writes the frames as one buffer, continuing after short writes. */
async function writeAll(handle: fs.FileHandle, buffers: Buffer[]): Promise<void> {
  const data = buffers.length === 1 ? buffers[0] : Buffer.concat(buffers);
  let offset = 0;
  while (offset < data.length) offset += (await handle.write(data, offset)).bytesWritten;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
