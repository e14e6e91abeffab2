/**
 * What the parsers that honour the required-labels hint (LabelsBuilder.wanted) share: naming
 * the label a key sets without making the key's string, and, for lines read from their ASCII
 * bytes, holding the values found until the line is known to be read there.
 */
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { AsciiStrings } from './asciiStrings.js';
import { KeyCache } from './sanitize.js';
import { ASCII_DROPPED, ASCII_KEPT, type AsciiOutcome, type ValueGate } from './stage.js';

/** WantedKeys names the wanted label a key sets, if any, as Loki's parsers name keys (sanitised, suffixed when a stream label has the name). */
export class WantedKeys {
  /** raw lists, for `rawOf`, the keys that may name a wanted label as they are: each name, and it without the duplicate suffix. */
  private raw: readonly string[] = [];
  private rawOf: ReadonlySet<string> | undefined;

  constructor(
    private readonly keys: KeyCache,
    private readonly strings: AsciiStrings,
  ) {}

  private rawKeys(wanted: ReadonlySet<string>): readonly string[] {
    if (wanted !== this.rawOf) {
      const raw = new Set<string>();
      for (const name of wanted) raw.add(name.endsWith(DUPLICATE_SUFFIX) ? name.slice(0, -DUPLICATE_SUFFIX.length) : name).add(name);
      this.raw = [...raw];
      this.rawOf = wanted;
    }
    return this.raw;
  }

  /** plainInText is the wanted label the key line[start, end) sets, the key being a valid label name as it is. */
  plainInText(line: string, start: number, end: number, labels: LabelsBuilder, wanted: ReadonlySet<string>): string | undefined {
    const raw = this.rawKeys(wanted);
    const length = end - start;
    for (let r = 0; r < raw.length; r++) {
      const candidate = raw[r];
      if (candidate.length === length && sameAt(line, start, candidate)) return labels.wantedNames(raw)[r];
    }
    return undefined;
  }

  /** inBytes is the wanted label the ASCII key bytes[start, end) sets, whatever its characters. */
  inBytes(bytes: Uint8Array, start: number, end: number, labels: LabelsBuilder, wanted: ReadonlySet<string>): string | undefined {
    const raw = this.rawKeys(wanted);
    const length = end - start;
    for (let r = 0; r < raw.length; r++) {
      const candidate = raw[r];
      if (candidate.length === length && sameAsciiAt(bytes, start, candidate)) return labels.wantedNames(raw)[r];
    }
    // Wanted names are plain: a key matching none can still set one only by sanitising into it.
    if (isPlainAsciiName(bytes, start, end)) return undefined;
    let name = this.keys.get(this.strings.text(bytes, start, end));
    if (name !== '' && labels.baseHas(name)) name += DUPLICATE_SUFFIX;
    return name !== '' && wanted.has(name) ? name : undefined;
  }
}

/**
 * FoundValues holds the wanted labels a parser met in a line read from its bytes, as value
 * bounds, and sets them only once the whole line is known to be read there: a line handed back
 * to the text reader must leave the labels as they were.
 */
export class FoundValues {
  private names: string[] = new Array<string>(8).fill('');
  private starts = new Int32Array(8);
  private ends = new Int32Array(8);
  /** count is how many labels the current line found. */
  count = 0;

  constructor(private readonly strings: AsciiStrings) {}

  /** has tells whether the current line found `name` already (the first value of a repeated key counts). */
  has(name: string): boolean {
    for (let k = 0; k < this.count; k++) if (this.names[k] === name) return true;
    return false;
  }

  /** add keeps the value bytes[start, end) of `name`; the caller checked has(name). */
  add(name: string, start: number, end: number): void {
    const k = this.count++;
    if (k === this.starts.length) this.grow();
    this.names[k] = name;
    this.starts[k] = start;
    this.ends[k] = end;
  }

  /** indexOf is the place of `name` among the current line's values (for startOf and endOf), or -1. */
  indexOf(name: string): number {
    for (let k = 0; k < this.count; k++) if (this.names[k] === name) return k;
    return -1;
  }

  /** startOf is where the value at place k starts in the line's bytes. */
  startOf(k: number): number {
    return this.starts[k];
  }

  /** endOf is where the value at place k ends in the line's bytes. */
  endOf(k: number): number {
    return this.ends[k];
  }

  /**
   * setAll sets the labels found, in the order met, from `bytes`, and answers ASCII_KEPT;
   * unless `gate` tells that the filter after the parser drops the line, when it sets nothing
   * and answers ASCII_DROPPED.
   */
  setAll(bytes: Uint8Array, labels: LabelsBuilder, gate: ValueGate | undefined): AsciiOutcome {
    if (gate !== undefined && !gate(this, bytes)) return ASCII_DROPPED;
    for (let k = 0; k < this.count; k++) labels.set(this.names[k], this.strings.text(bytes, this.starts[k], this.ends[k]));
    return ASCII_KEPT;
  }

  private grow(): void {
    this.names = this.names.concat(new Array<string>(this.names.length).fill(''));
    const starts = new Int32Array(this.starts.length * 2);
    const ends = new Int32Array(this.ends.length * 2);
    starts.set(this.starts);
    ends.set(this.ends);
    this.starts = starts;
    this.ends = ends;
  }
}

/**
 * AsciiReading is what a parser that honours the hint keeps to read lines from their bytes:
 * the names keys set, the strings values become, and the values found on the current line.
 */
export class AsciiReading {
  readonly strings = new AsciiStrings();
  readonly names: WantedKeys;
  readonly found = new FoundValues(this.strings);

  constructor(keys: KeyCache) {
    this.names = new WantedKeys(keys, this.strings);
  }
}

/** readsAsciiWhenTold is AsciiParser.readsAscii of the parsers that read bytes once told which labels are read (or that none is). */
export function readsAsciiWhenTold(wanted: ReadonlySet<string> | undefined, noLabels: boolean): boolean {
  return wanted !== undefined || noLabels;
}

/**
 * beginAsciiLine starts processAscii in those parsers: true when the line needs no reading (no
 * label is read), false when it must go to the text reader (no hint: every label is wanted),
 * else the wanted labels, with `found` emptied for the line.
 */
export function beginAsciiLine(labels: LabelsBuilder, found: FoundValues): ReadonlySet<string> | boolean {
  if (labels.noLabels) return true;
  const wanted = labels.wanted;
  if (wanted === undefined) return false;
  found.count = 0;
  return wanted;
}

/**
 * sameAt tells whether `name` stands in `line` at `start` (the caller checked the length).
 * Names are a few characters: comparing them here cost a sixth of `startsWith(name, start)`
 * on lines decoded from UTF-8, which a worker met a million times a query.
 */
function sameAt(line: string, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (line.charCodeAt(start + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** sameAsciiAt is sameAt over bytes (a character beyond ASCII never matches a byte of an ASCII line). */
export function sameAsciiAt(bytes: Uint8Array, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (bytes[start + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** isPlainAsciiName tells whether the bytes [start, end) are a valid label name as they are, so sanitising leaves them unchanged. */
function isPlainAsciiName(bytes: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (i === start || c < 48 || c > 57)) return false;
  }
  return true;
}
