/**
 * Go values as LogQL templates see them. Templates run over `map[string]string` (the line's
 * labels) and Loki's function library returns ints, floats, times, maps and slices, whose
 * printing, truthiness and comparison follow Go's rules. Representation: string as string,
 * int64 as bigint, float64 as number, bool as boolean, nil as null, and tagged objects for
 * time.Time, maps and slices.
 */

/** GoTime is a time.Time: Unix seconds and nanoseconds plus the zone it prints in. */
export interface GoTime {
  kind: 'time';
  /** seconds since the Unix epoch (an integer). */
  sec: number;
  /** nsec is the nanosecond within the second, 0 ≤ nsec < 1e9. */
  nsec: number;
  /** offsetSec is the zone's offset east of UTC in seconds. */
  offsetSec: number;
  /** zone is the zone abbreviation printed by MST layouts. */
  zone: string;
}

/** GoMap is a map with string keys; `zero` is what a missing key yields (missingkey=zero). */
export interface GoMap {
  kind: 'map';
  entries: ReadonlyMap<string, GoValue>;
  zero: GoValue;
  /** typeName is the Go type, for messages (`map[string]string`). */
  typeName: string;
}

/** GoSlice is a slice. */
export interface GoSlice {
  kind: 'slice';
  items: readonly GoValue[];
}

/** GoValue is any value a template expression can produce. */
export type GoValue = string | number | bigint | boolean | null | GoTime | GoMap | GoSlice;

/** TemplateExecError is a failure while executing a template (Go's ExecError). */
export class TemplateExecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateExecError';
  }
}

/** typeName returns the Go type of a value, for error messages. */
export function typeName(v: GoValue): string {
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    default:
      if (v.kind === 'time') return 'time.Time';
      if (v.kind === 'map') return v.typeName;
      return '[]interface {}';
  }
}

/** isTrue is text/template's truth: zero values and empty collections are false. */
export function isTrue(v: GoValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case 'string':
      return v.length > 0;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'boolean':
      return v;
    default:
      if (v.kind === 'map') return v.entries.size > 0;
      if (v.kind === 'slice') return v.items.length > 0;
      return true;
  }
}

/** labelMap wraps a line's labels as the template's dot. */
export function labelMap(entries: ReadonlyMap<string, string>): GoMap {
  return { kind: 'map', entries, zero: '', typeName: 'map[string]string' };
}

/** fromJsonValue converts a parsed JSON value as Go's json.Unmarshal into interface{} does. */
export function fromJsonValue(v: unknown): GoValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return { kind: 'slice', items: v.map(fromJsonValue) };
  const entries = new Map<string, GoValue>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) entries.set(k, fromJsonValue(x));
  return { kind: 'map', entries, zero: null, typeName: 'map[string]interface {}' };
}
