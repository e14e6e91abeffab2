import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Bytes on disk per stored sample and log line. Sluice's catalog says which segment holds
 * which signal; its write-ahead log mixes both and is reported apart, since it shrinks once
 * the head is cut into segments. The peers' whole data directories are counted.
 */
export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

export interface SluiceDiskUsage {
  metricSegmentBytes: number;
  logSegmentBytes: number;
  walBytes: number;
  totalBytes: number;
}

export function sluiceDiskUsage(dataDir: string): SluiceDiskUsage {
  const usage: SluiceDiskUsage = { metricSegmentBytes: 0, logSegmentBytes: 0, walBytes: 0, totalBytes: directoryBytes(dataDir) };
  try {
    const catalog = JSON.parse(readFileSync(path.join(dataDir, 'catalog.json'), 'utf8')) as { segments?: Array<{ signal: string; bytes: number }> };
    for (const s of catalog.segments ?? []) {
      if (s.signal === 'metrics') usage.metricSegmentBytes += s.bytes;
      else usage.logSegmentBytes += s.bytes;
    }
  } catch {
    // no segment cut yet: everything is still in the write-ahead log
  }
  try {
    usage.walBytes = directoryBytes(path.join(dataDir, 'wal'));
  } catch {
    usage.walBytes = 0;
  }
  return usage;
}
