import { appendSanitizedKey, LogfmtDecoder, logqlQueryKind, sanitizeLabelKey, type RawRow } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import { lokiParams, lokiRange, requireQuery } from './lokiParams.js';
import { clientSignal, parseChecked, readLogRows, type LokiQueryDeps } from './lokiQuery.js';

/**
 * /detected_fields and /detected_field/{name}/values: the fields Grafana offers to filter on
 * that live in the lines rather than in labels. As Loki does, the newest `line_limit` lines of
 * the query are parsed (JSON objects with the json parser's flattened names, other lines with
 * logfmt) and every field is reported with its type, its number of distinct values and the
 * parsers that found it. Work is bounded by the line limit (itself under the org's maximum),
 * the number of fields and the values kept per field. A `line_limit` over the org's line limit
 * is lowered to it.
 */

/** DEFAULT_LINE_LIMIT and DEFAULT_FIELD_LIMIT are Loki's defaults for `line_limit` and `limit`. */
const DEFAULT_LINE_LIMIT = 1000;
const DEFAULT_FIELD_LIMIT = 1000;

/** MAX_VALUES_PER_FIELD bounds the distinct values kept per field; cardinality saturates there. */
const MAX_VALUES_PER_FIELD = 10_000;

/** MAX_JSON_DEPTH bounds how deep nested JSON objects are flattened. */
const MAX_JSON_DEPTH = 32;

type Parser = 'json' | 'logfmt';
type FieldType = 'int' | 'float' | 'boolean' | 'duration' | 'bytes' | 'string';

interface FieldStats {
  type: FieldType;
  values: Set<string>;
  parsers: Set<Parser>;
  jsonPath?: string[];
}

const INT = /^[-+]?(?:0|[1-9]\d*)$/;
const FLOAT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$|^[-+]?(?:inf|infinity|nan)$/i;
const BOOLEAN = /^(?:1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/;
const DURATION = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/;
const BYTES = /^(?:\d+\.?\d*|\.\d+)\s?(?:[kKmMgGtTpPeE]i?[bB]?|[bB])$/;

/** fieldType classifies a value in Loki's order: int, float, boolean, duration, bytes, else string. */
export function fieldType(value: string): FieldType {
  if (INT.test(value)) return 'int';
  if (FLOAT.test(value)) return 'float';
  if (BOOLEAN.test(value)) return 'boolean';
  if (value === '0' || DURATION.test(value)) return 'duration';
  if (BYTES.test(value)) return 'bytes';
  return 'string';
}

/** FieldVisitor receives each parsed field of a line: its label name, value and (for JSON) key path. */
type FieldVisitor = (name: string, value: string, parser: Parser, path?: string[]) => void;

/** visitJson flattens a JSON object's scalar members into `a_b` names, as the json parser does; arrays are not fields. */
function visitJson(obj: Record<string, unknown>, prefix: string, path: string[], depth: number, visit: FieldVisitor): void {
  if (depth > MAX_JSON_DEPTH) return;
  for (const [key, value] of Object.entries(obj)) {
    const name = appendSanitizedKey(prefix, key);
    if (name === '' || value === null || Array.isArray(value)) continue;
    if (typeof value === 'object') visitJson(value as Record<string, unknown>, name, [...path, key], depth + 1, visit);
    else visit(name, String(value), 'json', [...path, key]);
  }
}

const logfmt = new LogfmtDecoder();

/** visitLine parses one line: a JSON object with the json parser, anything else with logfmt. */
function visitLine(line: string, visit: FieldVisitor): void {
  const trimmed = line.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) visitJson(parsed as Record<string, unknown>, '', [], 0, visit);
    return;
  }
  if (!line.includes('=')) return;
  logfmt.reset(line);
  while (!logfmt.eol()) {
    if (!logfmt.scan() || !logfmt.hasKey) continue;
    const name = sanitizeLabelKey(logfmt.key);
    if (name !== '') visit(name, logfmt.value, 'logfmt');
  }
}

/** collectFields parses `rows` into per-field statistics, at most `fieldLimit` fields (or only the field `only`). */
function collectFields(rows: readonly RawRow[], fieldLimit: number, only: string | undefined): Map<string, FieldStats> {
  const fields = new Map<string, FieldStats>();
  for (const row of rows) {
    visitLine(row.line ?? row.tags.message ?? '', (parsedName, value, parser, path) => {
      // A field named like one of the line's labels is renamed as the parsers rename it.
      const name = Object.hasOwn(row.tags, parsedName) && parsedName !== 'message' ? `${parsedName}_extracted` : parsedName;
      if (only !== undefined && name !== only) return;
      let stats = fields.get(name);
      if (stats === undefined) {
        if (fields.size >= fieldLimit) return;
        fields.set(name, (stats = { type: fieldType(value), values: new Set(), parsers: new Set(), ...(path ? { jsonPath: path } : {}) }));
      }
      stats.parsers.add(parser);
      if (stats.values.size < MAX_VALUES_PER_FIELD) stats.values.add(value);
    });
  }
  return fields;
}

/** positiveInt reads an optional positive integer parameter. */
function positiveInt(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null || text === '') return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) <= 0) throw new ApiError('BAD_REQUEST', `${name} must be a positive integer`);
  return Number(text);
}

/** readFields runs the request's log query and parses its newest lines into fields. */
async function readFields(ctx: RequestContext, org: string, deps: LokiQueryDeps, only?: string): Promise<{ fields: Map<string, FieldStats>; limit: number }> {
  const params = lokiParams(ctx);
  const q = requireQuery(params);
  const range = lokiRange(params);
  // A line limit over the org's maximum is lowered to it: the answer is a sample either way.
  const lineLimit = Math.min(positiveInt(params, 'line_limit', DEFAULT_LINE_LIMIT), deps.queryLimitsFor(org).maxLogLimit);
  const limit = positiveInt(params, 'limit', DEFAULT_FIELD_LIMIT);
  const expr = parseChecked(q, true);
  if (logqlQueryKind(expr) !== 'log') throw new ApiError('BAD_REQUEST', 'detected fields need a log query such as {service_name="api"}, not a metric query');
  const rows = await readLogRows(org, deps, q, expr, range, lineLimit, 'backward', clientSignal(ctx));
  return { fields: collectFields(rows, limit, only), limit };
}

/** detectedFields serves /detected_fields: each field with its type, cardinality, parsers and JSON path. */
export async function detectedFields(ctx: RequestContext, org: string, deps: LokiQueryDeps): Promise<unknown> {
  const { fields, limit } = await readFields(ctx, org, deps);
  const list = [...fields]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([label, s]) => ({ label, type: s.type, cardinality: s.values.size, parsers: [...s.parsers].sort(), ...(s.jsonPath ? { jsonPath: s.jsonPath } : {}) }));
  return { fields: list, limit };
}

/** detectedFieldValues serves /detected_field/{name}/values: the distinct values of one field, sorted. */
export async function detectedFieldValues(ctx: RequestContext, org: string, deps: LokiQueryDeps): Promise<unknown> {
  const { fields, limit } = await readFields(ctx, org, deps, ctx.params.name);
  const values = [...(fields.get(ctx.params.name)?.values ?? [])].sort().slice(0, limit);
  return { values, limit };
}
