/**
 * The mutable label set a log pipeline works on while it processes one line, with Loki's
 * rules: the stream's own labels are the base; parsers and formatters add labels over it;
 * `drop`/`keep`/renames delete labels; a stage failure is recorded as `__error__` (and
 * `__error_details__`) rather than thrown. A parsed name that collides with a base label is
 * stored as `<name>_extracted`, and the first parser to extract a name wins for that line.
 */
import type { Labels } from '../../storage/labels.js';
import { labelSetKey, labelValue, setLabel } from './labelSet.js';
import { AddedLabels } from './addedLabels.js';

/** BY_ONE_VALUES bounds the results a stream keeps per value of a `by (name)` grouping (a label of many values is interned line by line). */
const BY_ONE_VALUES = 256;

/** ERROR_LABEL names the label a failing stage sets on its line. */
export const ERROR_LABEL = '__error__';
/** ERROR_DETAILS_LABEL carries the failing stage's message. */
export const ERROR_DETAILS_LABEL = '__error_details__';
/** PRESERVE_ERROR_LABEL marks errors a query groups by, which then must not fail it. */
export const PRESERVE_ERROR_LABEL = '__preserve_error__';
/** DUPLICATE_SUFFIX is appended to a parsed name that a stream label already uses. */
export const DUPLICATE_SUFFIX = '_extracted';

/** ResultLabels is a finished label set with its identity key. */
export interface ResultLabels {
  key: string;
  labels: Labels;
}

/**
 * LabelCache interns finished label sets by key, so equal sets produced by different lines
 * share one object (a series is then identified by object or key equally well).
 */
export class LabelCache {
  private readonly byKey = new Map<string, ResultLabels>();

  /** intern returns the cached result for `names`/`values` (sorted by name). */
  intern(names: readonly string[], values: readonly string[]): ResultLabels {
    const key = labelSetKey(names, values);
    let found = this.byKey.get(key);
    if (found === undefined) {
      const labels: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) setLabel(labels, names[i], values[i]);
      found = { key, labels };
      this.byKey.set(key, found);
    }
    return found;
  }

  /** fromLabels interns an already sorted label object. */
  fromLabels(labels: Labels): ResultLabels {
    const names = Object.keys(labels);
    return this.intern(
      names,
      names.map((n) => labels[n]),
    );
  }
}

/** GroupingSpec is the by/without clause a sample extractor applies to each line's labels. */
export interface GroupingSpec {
  without: boolean;
  /** names are sorted. */
  names: readonly string[];
}

/**
 * LabelsBuilder is the per-stream label state of a pipeline. One instance serves every line of
 * a stream: reset() clears what the previous line added.
 */
export class LabelsBuilder {
  /**
   * base holds the stored tags of the stream's lines, sorted by name: stream labels (never
   * empty) and structured metadata, where an empty value is a value (`name=""` is present).
   */
  readonly base: Labels;
  private readonly baseNames: readonly string[];
  private readonly baseResult: ResultLabels;
  private readonly added = new AddedLabels();
  private readonly deleted = new Set<string>();
  /** deletedExtracted remembers names a parser set and a later stage deleted (still "extracted"). */
  private readonly deletedExtracted = new Set<string>();
  private err = '';
  /** byOneGrouping, byOneResults and byOneAbsent keep groupedByOne's results per value (and without the label) for one grouping. */
  private byOneGrouping: GroupingSpec | undefined;
  private readonly byOneResults = new Map<string, ResultLabels>();
  private byOneAbsent: ResultLabels | undefined;
  /** wantedKeys and wantedNamesOfKeys are wantedNames' last answer. */
  private wantedKeys: readonly string[] | undefined;
  private wantedNamesOfKeys: readonly (string | undefined)[] = [];
  private errDetails = '';
  private readonly cache: LabelCache;
  /** baseGrouping and baseGrouped cache the grouped labels of an unchanged line (Loki's toBaseGroup). */
  private baseGrouping: GroupingSpec | undefined;
  private baseGrouped: ResultLabels | undefined;
  /**
   * noLabels tells parsers that no label they could extract is ever read (Loki's parser hint
   * for `sum(count_over_time({…} | json [1m]))`), so they may skip the line entirely.
   */
  readonly noLabels: boolean;
  /** preserveError makes parser failures add `__preserve_error__="true"`. */
  readonly preserveError: boolean;
  /**
   * wanted, when set, are the only labels anything after the parsers reads (Loki's
   * required-labels hint for `sum by (route) (count_over_time({…} | json [1m]))`): parsers
   * that honour it extract only these, and may stop reading a line once they have them all.
   */
  readonly wanted: ReadonlySet<string> | undefined;

  constructor(base: Labels, cache: LabelCache, noLabels = false, preserveError = false, wanted?: ReadonlySet<string>) {
    this.base = base;
    this.baseNames = Object.keys(base);
    this.cache = cache;
    this.baseResult = cache.fromLabels(base);
    this.noLabels = noLabels;
    this.preserveError = preserveError;
    this.wanted = wanted;
  }

  /** reset forgets everything the previous line changed. */
  reset(): void {
    if (this.added.size > 0) this.added.clear();
    if (this.deleted.size > 0) this.deleted.clear();
    if (this.deletedExtracted.size > 0) this.deletedExtracted.clear();
    this.err = '';
    this.errDetails = '';
  }

  /** get returns a label's current value ('' for a label present with an empty value), or undefined when it is absent. */
  get(name: string): string | undefined {
    const v = this.added.get(name);
    if (v !== undefined) return v;
    if (this.deleted.has(name)) return undefined;
    return labelValue(this.base, name);
  }

  /** baseHas reports whether the stream itself carries `name` (deletions aside), as Loki's BaseHas. */
  baseHas(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.base, name);
  }

  /**
   * wantedNames says, for each key of `keys` (as a parser meets them in a line), which wanted
   * label it sets on this stream: the key itself, or with DUPLICATE_SUFFIX when the stream has
   * a label of that name, or undefined when that label is not wanted. Worked out once per
   * stream and list: a parser asking per key and line paid two lookups each time.
   */
  wantedNames(keys: readonly string[]): readonly (string | undefined)[] {
    if (keys !== this.wantedKeys) {
      const wanted = this.wanted;
      this.wantedKeys = keys;
      this.wantedNamesOfKeys = keys.map((key) => {
        const name = this.baseHas(key) ? key + DUPLICATE_SUFFIX : key;
        return wanted === undefined || wanted.has(name) ? name : undefined;
      });
    }
    return this.wantedNamesOfKeys;
  }

  /** isExtracted reports whether a parser already extracted `name` on this line. */
  isExtracted(name: string): boolean {
    return this.added.has(name) || (this.deletedExtracted.size > 0 && this.deletedExtracted.has(name));
  }

  /** set stores a parsed or formatted label, overriding the stream's value. */
  set(name: string, value: string): void {
    this.added.set(name, value);
  }

  /** del removes a label, whatever its origin. */
  del(name: string): void {
    if (this.added.delete(name)) this.deletedExtracted.add(name);
    this.deleted.add(name);
  }

  /** setError records a stage failure on the line; `details` is the failure's message. */
  setError(type: string, details?: string): void {
    this.err = type;
    if (details !== undefined) this.errDetails = details;
  }

  /** setParserError records a parser failure, marking it preserved when the query asks for it. */
  setParserError(type: string, details?: string): void {
    this.setError(type, details);
    if (this.preserveError) this.set(PRESERVE_ERROR_LABEL, 'true');
  }

  /** hasError reports whether a stage failed on this line. */
  hasError(): boolean {
    return this.err !== '';
  }

  /** error returns the failure type, or '' when there is none. */
  error(): string {
    return this.err;
  }

  /** errorDetails returns the failure message, or ''. */
  errorDetails(): string {
    return this.errDetails;
  }

  /** clearError drops the failure type (drop __error__). */
  clearError(): void {
    this.err = '';
  }

  /** clearErrorDetails drops the failure message (drop __error_details__). */
  clearErrorDetails(): void {
    this.errDetails = '';
  }

  /** unchanged reports whether the line's labels are exactly the stream's. */
  unchanged(): boolean {
    return this.added.size === 0 && this.deleted.size === 0 && this.err === '' && this.errDetails === '';
  }

  /**
   * entries lists the current labels (errors included) as parallel arrays sorted by name.
   * Used by keep, templates and result building.
   */
  entries(): { names: string[]; values: string[] } {
    const names: string[] = [];
    const values: string[] = [];
    const added = this.added;
    const deleted = this.deleted;
    const baseNames = this.baseNames;
    const base = this.base;
    let needsSort = false;
    for (let i = 0; i < baseNames.length; i++) {
      const n = baseNames[i];
      if (deleted.has(n) || added.has(n)) continue;
      names.push(n);
      values.push(base[n]);
    }
    if (added.size > 0) {
      needsSort = true;
      for (let i = 0; i < added.size; i++) {
        names.push(added.nameAt(i));
        values.push(added.valueAt(i));
      }
    }
    if (this.err !== '') {
      names.push(ERROR_LABEL);
      values.push(this.err);
      needsSort = true;
    }
    if (this.errDetails !== '') {
      names.push(ERROR_DETAILS_LABEL);
      values.push(this.errDetails);
      needsSort = true;
    }
    if (needsSort) sortParallel(names, values);
    return { names, values };
  }

  /** toObject returns the current labels as a plain object (errors included). */
  toObject(): Record<string, string> {
    const out: Record<string, string> = {};
    const { names, values } = this.entries();
    for (let i = 0; i < names.length; i++) setLabel(out, names[i], values[i]);
    return out;
  }

  /** result returns the finished label set of the line, interned. */
  result(): ResultLabels {
    if (this.unchanged()) return this.baseResult;
    const { names, values } = this.entries();
    return this.cache.intern(names, values);
  }

  /**
   * grouped returns the finished label set reduced by a by/without clause, as Loki's
   * GroupedLabels: a line with an error keeps all its labels so the error reaches the result.
   */
  grouped(grouping: GroupingSpec | undefined): ResultLabels {
    if (grouping === undefined) return this.result();
    if (this.unchanged()) {
      if (this.baseGrouping !== grouping || this.baseGrouped === undefined) {
        this.baseGrouped = this.computeGrouped(grouping);
        this.baseGrouping = grouping;
      }
      return this.baseGrouped;
    }
    return this.computeGrouped(grouping);
  }

  private computeGrouped(grouping: GroupingSpec): ResultLabels {
    if (this.err !== '') return this.result();
    const names: string[] = [];
    const values: string[] = [];
    const groups = grouping.names;
    if (!grouping.without && groups.length === 1) return this.groupedByOne(grouping);
    if (!grouping.without) {
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i];
        if (this.deleted.has(g)) continue;
        const v = this.added.get(g) ?? labelValue(this.base, g);
        if (v === undefined) continue;
        names.push(g);
        values.push(v);
      }
      return this.cache.intern(names, values);
    }
    const { names: allNames, values: allValues } = this.entries();
    for (let i = 0; i < allNames.length; i++) {
      const n = allNames[i];
      if (n === ERROR_DETAILS_LABEL || groups.includes(n)) continue;
      names.push(n);
      values.push(allValues[i]);
    }
    return this.cache.intern(names, values);
  }

  /**
   * groupedByOne is computeGrouped for `by (name)`: a stream's lines take few values of one
   * label, so the result is kept per value; interning built and hashed the set's key for every
   * line.
   */
  private groupedByOne(grouping: GroupingSpec): ResultLabels {
    const name = grouping.names[0];
    const value = this.deleted.has(name) ? undefined : (this.added.get(name) ?? labelValue(this.base, name));
    if (grouping !== this.byOneGrouping) {
      this.byOneGrouping = grouping;
      this.byOneResults.clear();
      this.byOneAbsent = undefined;
    }
    if (value === undefined) return (this.byOneAbsent ??= this.cache.intern([], []));
    let found = this.byOneResults.get(value);
    if (found === undefined) {
      found = this.cache.intern([name], [value]);
      if (this.byOneResults.size < BY_ONE_VALUES) this.byOneResults.set(value, found);
    }
    return found;
  }
}

/** sortParallel sorts `names` by code unit order, keeping `values` aligned. */
export function sortParallel(names: string[], values: string[]): void {
  const n = names.length;
  // Insertion sort: label sets are small and mostly sorted already.
  for (let i = 1; i < n; i++) {
    const name = names[i];
    const value = values[i];
    let j = i - 1;
    while (j >= 0 && names[j] > name) {
      names[j + 1] = names[j];
      values[j + 1] = values[j];
      j--;
    }
    names[j + 1] = name;
    values[j + 1] = value;
  }
}
