/**
 * AddedLabels is the insertion-ordered map of the labels a pipeline added to one line (what a
 * Map did), emptied for every line without allocating: a Map's clear() allocates a new table,
 * which at a million lines a query was a tenth of the time a parser reading bytes took. Lines
 * add a few labels, so names are found by a scan; past INDEXED_FROM labels an index by name
 * takes over, so a document of hundreds of keys is not quadratic.
 */

/** INDEXED_FROM is how many labels a line holds before they are looked up through an index. */
const INDEXED_FROM = 16;

export class AddedLabels {
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private index: Map<string, number> | undefined;
  /** size is how many labels the line added. */
  size = 0;

  clear(): void {
    this.size = 0;
    if (this.index !== undefined) this.index.clear();
  }

  private indexOf(name: string): number {
    if (this.size > INDEXED_FROM) return this.index!.get(name) ?? -1;
    for (let i = 0; i < this.size; i++) if (this.names[i] === name) return i;
    return -1;
  }

  get(name: string): string | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.values[i];
  }

  has(name: string): boolean {
    return this.indexOf(name) >= 0;
  }

  /** set gives `name` a value, keeping its place when it had one (as Map.set does). */
  set(name: string, value: string): void {
    const i = this.indexOf(name);
    if (i >= 0) {
      this.values[i] = value;
      return;
    }
    const at = this.size++;
    this.names[at] = name;
    this.values[at] = value;
    if (this.size > INDEXED_FROM) this.reindex(at);
  }

  /** delete removes `name` and tells whether it was there; later labels keep their order. */
  delete(name: string): boolean {
    const i = this.indexOf(name);
    if (i < 0) return false;
    this.names.copyWithin(i, i + 1, this.size);
    this.values.copyWithin(i, i + 1, this.size);
    this.size--;
    if (this.index !== undefined) {
      this.index.clear();
      if (this.size > INDEXED_FROM) this.reindex(0);
    }
    return true;
  }

  /** nameAt and valueAt read the labels in the order they were added, i below size. */
  nameAt(i: number): string {
    return this.names[i];
  }

  valueAt(i: number): string {
    return this.values[i];
  }

  /** reindex indexes the labels from `from` on (all of them when the index is new). */
  private reindex(from: number): void {
    if (this.index === undefined) this.index = new Map();
    const start = this.index.size === 0 ? 0 : from;
    for (let i = start; i < this.size; i++) this.index.set(this.names[i], i);
  }
}
