/**
 * Loading a script's streams into a LogHead. Stream labels and structured metadata both
 * become tags (our storage has one tag set per line); a metadata key that repeats a stream
 * label is stored as `<key>_extracted`, the name Loki gives the losing value. Storage drops
 * empty tag values, so empty metadata values are lost (a known difference).
 */
import { LogHead, type LogRecord } from '../../storage/logHead.js';
import type { LoadEntry } from './script.js';
import { EPOCH_MS } from './script.js';

const EPOCH_NS = BigInt(EPOCH_MS) * 1_000_000n;

/** buildHead loads every entry into a fresh head indexed on the stream labels. */
export function buildHead(entries: readonly LoadEntry[]): LogHead {
  const indexed = new Set<string>();
  for (const e of entries) for (const name of Object.keys(e.stream)) indexed.add(name);
  const head = new LogHead(indexed);
  const records: LogRecord[] = [];
  for (const e of entries) {
    const tags: Record<string, string> = { ...e.stream };
    for (const [name, value] of e.metadata) {
      if (Object.prototype.hasOwnProperty.call(e.stream, name)) tags[`${name}_extracted`] = value;
      else tags[name] = value;
    }
    for (const { offsetNs, line } of e.lines) records.push({ timestampNs: EPOCH_NS + offsetNs, message: line, level: '', tags });
  }
  records.sort((a, b) => (a.timestampNs < b.timestampNs ? -1 : a.timestampNs > b.timestampNs ? 1 : 0));
  head.append(records);
  return head;
}
