/**
 * `| unpack`, the inverse of Promtail's pack stage: the line is a JSON object whose string
 * fields are labels and whose `_entry` field is the original line, which replaces it. As in
 * Loki, the labels are only applied when `_entry` is present; a line that is not a JSON
 * object gets `__error__="JSONParserErr"`.
 */
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { JSON_PARSER_ERROR } from './jsonParser.js';
import { JsonScanError, forEachMember, stringValue } from './jsonScan.js';
import { replaceInvalidUtf8, sanitizeLabelKey } from './sanitize.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** PACKED_ENTRY_KEY holds the original line in a packed entry. */
export const PACKED_ENTRY_KEY = '_entry';

/** UnpackParser unpacks packed lines. */
export class UnpackParser implements Stage {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = true;
  readonly isParser = true;
  readonly readsLine = true;

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (line.length === 0 || labels.noLabels) return line;
    if (line.charCodeAt(0) !== 123) {
      labels.setParserError(JSON_PARSER_ERROR, 'expecting json object(6), but it is not');
      return line;
    }
    let entry: string | undefined;
    const pending: string[] = [];
    try {
      forEachMember(line, 0, (key, start, end, kind) => {
        if (kind !== 'string') return;
        if (key === PACKED_ENTRY_KEY) {
          entry = stringValue(line, start, end);
          return;
        }
        const name = labels.baseHas(key) ? key + DUPLICATE_SUFFIX : key;
        if (labels.isExtracted(name)) return;
        pending.push(sanitizeLabelKey(name), replaceInvalidUtf8(stringValue(line, start, end)));
      });
    } catch (err) {
      if (!(err instanceof JsonScanError)) throw err;
      labels.setParserError(JSON_PARSER_ERROR, err.message);
      return line;
    }
    if (entry === undefined) return line;
    for (let i = 0; i < pending.length; i += 2) labels.set(pending[i], pending[i + 1]);
    return entry;
  }
}
