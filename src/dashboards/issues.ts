/**
 * A finding about a dashboard spec, from the schema or from lint. Both kinds share one shape so
 * an editor can underline every finding the same way: `path` is for people, `pointer` for
 * code, `rule` says which check fired (see docs/dashboards.md for the list).
 */

export type IssueSeverity = 'error' | 'warning';

export interface DashboardIssue {
  severity: IssueSeverity;
  /** rule names the check: `schema/<what>` for shape problems, a lint rule id otherwise. */
  rule: string;
  /** path is the JSONPath-style location, such as `$.panels.cpu.queries[0].query`. */
  path: string;
  /** pointer is the same location as an RFC 6901 JSON Pointer, such as `/panels/cpu/queries/0/query`. */
  pointer: string;
  message: string;
  /** position is the offending range inside a query string, for query findings. */
  position?: { start: number; end: number };
}

/** DashboardValidation is the answer of the validate endpoint and the body of a rejected write. */
export interface DashboardValidation {
  valid: boolean;
  errors: DashboardIssue[];
  warnings: DashboardIssue[];
  /**
   * truncated counts the errors and warnings found beyond the listed ones (see
   * MAX_LISTED_ISSUES); it is absent when every finding is listed.
   */
  truncated?: { errors: number; warnings: number };
}

/** Location is a path into the spec as a list of keys and indexes. */
export type Location = ReadonlyArray<string | number>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * formatPath renders a location the way people write it in JavaScript: dotted keys where they
 * are identifiers, `["..."]` otherwise, `[n]` for array indexes.
 */
export function formatPath(location: Location): string {
  let out = '$';
  for (const part of location) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (IDENTIFIER.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** formatPointer renders a location as an RFC 6901 JSON Pointer (`~` and `/` escaped). */
export function formatPointer(location: Location): string {
  let out = '';
  for (const part of location) out += '/' + String(part).replace(/~/g, '~0').replace(/\//g, '~1');
  return out;
}

/**
 * parsePointer turns a JSON Pointer back into a location, reading numeric segments as array
 * indexes only where the value at that point is an array (a panel may be keyed "0").
 */
export function parsePointer(pointer: string, root: unknown): Array<string | number> {
  if (pointer === '') return [];
  const out: Array<string | number> = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(?:0|[1-9][0-9]*)$/.test(key)) {
      const index = Number(key);
      out.push(index);
      node = node[index];
    } else {
      out.push(key);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return out;
}

/** issueAt builds a finding at `location`. */
export function issueAt(
  severity: IssueSeverity,
  rule: string,
  location: Location,
  message: string,
  position?: { start: number; end: number },
): DashboardIssue {
  const issue: DashboardIssue = { severity, rule, path: formatPath(location), pointer: formatPointer(location), message };
  if (position) issue.position = position;
  return issue;
}
