/**
 * `| logfmt`: every `key=value` pair becomes a label (keys sanitised, the first occurrence
 * of a key winning, empty values dropped unless `--keep-empty`); with arguments
 * (`| logfmt level, code="status"`) only the named keys are read. Malformed pairs are
 * skipped, or with `--strict` end the parse and set `__error__="LogfmtParserErr"`. When the
 * query says which labels it reads (LabelsBuilder.wanted), only those are set, and the parse
 * stops once it has them all, as Loki's does. Told so, it also reads lines stored as ASCII
 * bytes without their string being made (processAscii); a line with an escaped or malformed
 * pair is handed back to the text reader.
 */
import type { LogfmtExtraction } from '../../ast.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { LogfmtDecoder } from './logfmtDecoder.js';
import { KeyCache, replaceInvalidUtf8 } from './sanitize.js';
import { ASCII_KEPT, ASCII_NEEDS_TEXT, NO_LABELS_READ, type AsciiOutcome, type AsciiParser, type Stage, type ValueGate } from './stage.js';
import { AsciiReading, beginAsciiLine, readsAsciiWhenTold } from './wantedKeys.js';

const SPACE = 32;
const EQUALS = 61;
const QUOTE = 34;
const BACKSLASH = 92;

/** LOGFMT_PARSER_ERROR is the `__error__` value of a logfmt failure. */
export const LOGFMT_PARSER_ERROR = 'LogfmtParserErr';

/** LogfmtParser extracts every pair. */
export class LogfmtParser implements AsciiParser {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  private readonly decoder = new LogfmtDecoder();
  private readonly keys = new KeyCache();
  private readonly ascii = new AsciiReading(this.keys);

  constructor(
    private readonly strict: boolean,
    private readonly keepEmpty: boolean,
  ) {}

  readonly readsAscii = readsAsciiWhenTold;

  /**
   * processAscii is process() over the ASCII line bytes[start, end), for a builder with wanted
   * labels: pairs as the decoder splits them (bare keys, bare values, quoted values without
   * escapes), until every wanted label is found or the line ends, and only then sets them
   * (ASCII_KEPT), unless `gate` drops the line on the values found (ASCII_DROPPED, nothing set).
   * A quoted value with an escape, or a malformed pair (which process() skips, or with
   * `--strict` reports), answers ASCII_NEEDS_TEXT with nothing set, for process().
   */
  processAscii(bytes: Uint8Array, start: number, end: number, labels: LabelsBuilder, gate?: ValueGate): AsciiOutcome {
    const found = this.ascii.found;
    const wanted = beginAsciiLine(labels, found);
    if (typeof wanted === 'boolean') return wanted ? ASCII_KEPT : ASCII_NEEDS_TEXT;
    let p = start;
    for (;;) {
      while (p < end && bytes[p] <= SPACE) p++;
      if (p >= end) return found.setAll(bytes, labels, gate);
      const keyStart = p;
      while (p < end && bytes[p] !== EQUALS && bytes[p] !== QUOTE && bytes[p] > SPACE) p++;
      const keyEnd = p;
      let valueStart = p;
      let valueEnd = p;
      if (p < end && bytes[p] === QUOTE) return ASCII_NEEDS_TEXT;
      if (p < end && bytes[p] === EQUALS) {
        if (p === keyStart) return ASCII_NEEDS_TEXT;
        p++;
        valueStart = valueEnd = p;
        if (p < end && bytes[p] === QUOTE) {
          valueStart = valueEnd = p + 1;
          while (valueEnd < end && bytes[valueEnd] !== QUOTE && bytes[valueEnd] !== BACKSLASH) valueEnd++;
          if (valueEnd >= end || bytes[valueEnd] !== QUOTE) return ASCII_NEEDS_TEXT;
          p = valueEnd + 1;
        } else if (p < end && bytes[p] > SPACE) {
          while (p < end && bytes[p] > SPACE) {
            if (bytes[p] === EQUALS || bytes[p] === QUOTE) return ASCII_NEEDS_TEXT;
            p++;
          }
          valueEnd = p;
        }
      }
      const name = this.ascii.names.inBytes(bytes, keyStart, keyEnd, labels, wanted);
      if (name === undefined || found.has(name) || (!this.keepEmpty && valueEnd === valueStart)) continue;
      found.add(name, valueStart, valueEnd);
      if (found.count === wanted.size) return found.setAll(bytes, labels, gate);
    }
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (labels.noLabels) return line;
    const dec = this.decoder;
    const wanted = labels.wanted;
    let found = 0;
    dec.reset(line);
    while (!dec.eol()) {
      if (!dec.scan()) {
        if (this.strict) break;
        continue;
      }
      let name = this.keys.get(dec.key);
      if (name === '') continue;
      if (labels.baseHas(name)) name += DUPLICATE_SUFFIX;
      if ((wanted !== undefined && !wanted.has(name)) || labels.isExtracted(name)) continue;
      const value = replaceInvalidUtf8(dec.value);
      if (!this.keepEmpty && value === '') continue;
      labels.set(name, value);
      // With the query's wanted labels all set, the rest of the line is not read (Loki's hint).
      if (wanted !== undefined && ++found === wanted.size) return line;
    }
    if (this.strict && dec.error !== '') labels.setParserError(LOGFMT_PARSER_ERROR, dec.error);
    return line;
  }
}

/** LogfmtExpressionParser extracts the named keys, each under its chosen label name. */
export class LogfmtExpressionParser implements Stage {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  private readonly decoder = new LogfmtDecoder();
  private readonly keys = new KeyCache();
  /** byKey maps a logfmt key to the label names reading it. */
  private readonly byKey = new Map<string, string[]>();
  private readonly names: ReadonlySet<string>;

  constructor(
    private readonly extractions: readonly LogfmtExtraction[],
    private readonly strict: boolean,
  ) {
    for (const e of extractions) {
      const list = this.byKey.get(e.key) ?? [];
      list.push(e.name);
      this.byKey.set(e.key, list);
    }
    this.names = new Set(extractions.map((e) => e.name));
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (labels.noLabels) return line;
    for (const e of this.extractions) {
      if (!labels.baseHas(e.name)) labels.set(e.name, '');
    }
    const dec = this.decoder;
    dec.reset(line);
    while (!dec.eol()) {
      if (!dec.scan()) {
        if (this.strict) break;
        continue;
      }
      const key = this.keys.get(dec.key);
      if (key === '') continue;
      const value = dec.value.indexOf('\ufffd') >= 0 ? '' : dec.value;
      const targets = this.byKey.get(key) ?? (this.names.has(key) ? [key] : undefined);
      if (targets === undefined) continue;
      for (const target of targets) {
        const name = labels.baseHas(target) ? target + DUPLICATE_SUFFIX : target;
        labels.set(name, value);
      }
    }
    if (this.strict && dec.error !== '') labels.setParserError(LOGFMT_PARSER_ERROR, dec.error);
    return line;
  }
}
