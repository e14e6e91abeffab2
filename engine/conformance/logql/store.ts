/**
 * Loading a script's streams into a LogHead. Stream labels and structured metadata both
 * become tags (our storage has one tag set per line); a metadata key that repeats a stream
 * label is stored as `<key>_extracted`, the name Loki gives the losing value.
 *
 * Empty values follow Loki's write path: an empty stream label is dropped, an empty metadata
 * value is kept. The head keeps empty values only in tags it does not index, so the stream
 * labels are indexed except names some entry also carries as metadata.
 */
import { LogHead, type LogEntry } from '../../storage/logHead.js';
import type { LoadEntry } from './script.js';
import { EPOCH_MS } from './script.js';

const EPOCH_NS = BigInt(EPOCH_MS) * 1_000_000n;

/** buildHead loads every entry into a fresh head indexed on the stream labels. */
export function buildHead(entries: readonly LoadEntry[]): LogHead {
  const metadataNames = new Set<string>();
  for (const e of entries) for (const [name] of e.metadata) metadataNames.add(name);
  const indexed = new Set<string>();
  for (const e of entries) for (const name of Object.keys(e.stream)) if (!metadataNames.has(name)) indexed.add(name);
  const head = new LogHead(indexed);
  const records: LogEntry[] = [];
  for (const e of entries) {
    const streamLabels: Record<string, string> = {};
    for (const [name, value] of Object.entries(e.stream)) if (value !== '') streamLabels[name] = value;
    const tags: Record<string, string> = { ...streamLabels };
    for (const [name, value] of e.metadata) {
      if (Object.prototype.hasOwnProperty.call(streamLabels, name)) tags[`${name}_extracted`] = value;
      else tags[name] = value;
    }
    for (const { offsetNs, line } of e.lines) records.push({ timestampNs: EPOCH_NS + offsetNs, message: line, level: '', tags });
  }
  records.sort((a, b) => (a.timestampNs < b.timestampNs ? -1 : a.timestampNs > b.timestampNs ? 1 : 0));
  head.append(records);
  return head;
}
