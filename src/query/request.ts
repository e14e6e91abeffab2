import { ApiError } from '../errors.js';
import type { ResultFormat } from './compactEvents.js';

/**
 * requireObject insists on a JSON object body: arrays, strings and null are a malformed
 * request, not an expression problem.
 */
export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('BAD_REQUEST', 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** requireQueryText returns the `q` field, the one field every query and validate body needs. */
export function requireQueryText(body: Record<string, unknown>): string {
  const q = body.q;
  if (q === undefined || q === null) throw new ApiError('BAD_REQUEST', 'missing q: the expression to evaluate');
  if (typeof q !== 'string') throw new ApiError('BAD_REQUEST', 'q must be a string');
  if (q.trim() === '') throw new ApiError('BAD_REQUEST', 'q must not be empty');
  return q;
}

/** optionalBoolean reads a flag of a query body: absent or null is false, anything but a boolean a bad request. */
export function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ApiError('BAD_REQUEST', `${field} must be a boolean`);
  return value;
}

/**
 * resultFormat reads the query body's `format` and `columns`: absent, null or `events` is the
 * spec's shape; `compact` asks for series (or streams) once and their points (or rows) as
 * columns, written as JSON numbers, or with `columns: "float64"` as the bytes of little-endian
 * doubles in base64 (ResultFormat).
 */
export function resultFormat(body: Record<string, unknown>): ResultFormat {
  const { format, columns } = body;
  let compact: boolean;
  if (format === undefined || format === null || format === 'events') compact = false;
  else if (format === 'compact') compact = true;
  else throw new ApiError('BAD_REQUEST', 'format must be "events" (the default) or "compact"');
  if (columns === undefined || columns === null || columns === 'json') return compact ? 'compact' : 'events';
  if (columns !== 'float64') throw new ApiError('BAD_REQUEST', 'columns must be "json" (the default) or "float64"');
  if (!compact) throw new ApiError('BAD_REQUEST', 'columns applies to the compact format only: add "format": "compact"');
  return 'compact-float64';
}
