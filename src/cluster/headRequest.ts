import { compileMatchers, type LabelMatcher } from '../../engine/storage/matchers.js';
import { ApiError } from '../errors.js';

/** HEAD_ROUTE is the internal endpoint a head holder serves its heads on. */
export const HEAD_ROUTE = '/internal/v1/head';

/** MAX_HEAD_REQUEST_BYTES bounds the request body: an org, a few signals, at most 1024 partitions and MAX_HAVE chunk ids. */
export const MAX_HEAD_REQUEST_BYTES = 1024 * 1024;

/** MAX_HAVE bounds the chunk ids a request may say it holds (a head of several GiB is a few thousand chunks). */
export const MAX_HAVE = 10_000;

/** MAX_SELECTORS and MAX_MATCHERS bound the selectors a request narrows the answer to (a query has a handful). */
export const MAX_SELECTORS = 256;
export const MAX_MATCHERS = 64;

/**
 * HeadRequest is what a query process asks a head holder for: one org's heads of some
 * signals, optionally narrowed to some selectors and a time range, and the
 * write-log partitions it believes the holder owns (the answer says which it holds).
 */
export interface HeadRequest {
  org: string;
  signals: Array<'metrics' | 'logs'>;
  partitions?: number[];
  /** have lists chunk ids the caller kept from earlier answers; those are named, not resent. */
  have?: string[];
  /**
   * minMs and maxMs (milliseconds, inclusive) bound the samples and lines the asker reads: the
   * query's range widened by its lookback and range selectors. Chunks wholly outside are left
   * out, and one reaching across an edge is cut to the range when most of it lies outside.
   */
  minMs?: number;
  maxMs?: number;
  /**
   * selectors, when given, narrow the answer to the series (metrics) or streams (logs) that
   * match every matcher of at least one of them: the label matchers of a query's selectors,
   * or a LogQL stream selector. Absent, the whole heads are sent.
   */
  selectors?: LabelMatcher[][];
}

/** overFetchLimit is the 413 of an internal answer larger than SVC_HEAD_FETCH_MAX_BYTES allows. */
export function overFetchLimit(what: string, bytes: number, limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `${what} take ${bytes} bytes, over the limit of ${limit} (SVC_HEAD_FETCH_MAX_BYTES)`, { details: { bytes, limit } });
}

/** bad is the 400 every internal request's field check throws. */
export function bad(message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', message);
}

/** parseHeadRequest checks a decoded JSON body field by field. */
export function parseHeadRequest(value: unknown): HeadRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('body must be a JSON object');
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!['org', 'signals', 'partitions', 'have', 'minMs', 'maxMs', 'selectors'].includes(key)) throw bad(`unknown field "${key}"`);
  if (typeof body.org !== 'string' || body.org === '' || body.org.length > 200) throw bad('org must be a non-empty string of at most 200 characters');
  const signals = body.signals ?? ['metrics', 'logs'];
  if (!Array.isArray(signals) || signals.length === 0 || signals.some((s) => s !== 'metrics' && s !== 'logs')) throw bad('signals must be a non-empty list of "metrics" and "logs"');
  const out: HeadRequest = { org: body.org, signals: [...new Set(signals as Array<'metrics' | 'logs'>)] };
  if (body.partitions !== undefined) {
    const p = body.partitions;
    if (!Array.isArray(p) || p.length > 1024 || p.some((n) => !Number.isInteger(n) || (n as number) < 0 || (n as number) > 1023)) {
      throw bad('partitions must be a list of at most 1024 integers from 0 to 1023');
    }
    out.partitions = p as number[];
  }
  if (body.have !== undefined) {
    const have = body.have;
    if (!Array.isArray(have) || have.length > MAX_HAVE || have.some((id) => typeof id !== 'string' || id.length > 200)) {
      throw bad(`have must be a list of at most ${MAX_HAVE} chunk ids`);
    }
    out.have = have as string[];
  }
  Object.assign(out, parseTimeBounds(body));
  if (body.selectors !== undefined) out.selectors = parseSelectors(body.selectors);
  return out;
}

const MATCHER_TYPES: ReadonlySet<string> = new Set(['=', '!=', '=~', '!~']);

/**
 * parseTimeBounds reads an internal request's optional `minMs`/`maxMs` (finite milliseconds,
 * maxMs not before minMs), shared by the head and exemplar routes.
 */
export function parseTimeBounds(body: Record<string, unknown>): { minMs?: number; maxMs?: number } {
  const out: { minMs?: number; maxMs?: number } = {};
  for (const key of ['minMs', 'maxMs'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`${key} must be a number of milliseconds`);
    out[key] = v;
  }
  if (out.minMs !== undefined && out.maxMs !== undefined && out.maxMs < out.minMs) throw bad('maxMs must not be before minMs');
  return out;
}

/** parseSelectors checks a non-empty list of selectors, each a list of matchers whose regular expressions compile. */
export function parseSelectors(value: unknown): LabelMatcher[][] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SELECTORS) throw bad(`selectors must be a list of 1 to ${MAX_SELECTORS} selectors`);
  return value.map((selector: unknown, i) => {
    if (!Array.isArray(selector) || selector.length > MAX_MATCHERS) throw bad(`selectors[${i}] must be a list of at most ${MAX_MATCHERS} matchers`);
    const matchers = selector.map((m: unknown, j): LabelMatcher => {
      const where = `selectors[${i}][${j}]`;
      if (m === null || typeof m !== 'object' || Array.isArray(m)) throw bad(`${where} must be an object with name, type and value`);
      const { name, type, value: v, ...rest } = m as Record<string, unknown>;
      if (Object.keys(rest).length > 0) throw bad(`${where} has unknown field "${Object.keys(rest)[0]}"`);
      if (typeof name !== 'string' || name.length > 1024) throw bad(`${where}.name must be a string of at most 1024 characters`);
      if (typeof type !== 'string' || !MATCHER_TYPES.has(type)) throw bad(`${where}.type must be one of =, !=, =~, !~`);
      if (typeof v !== 'string') throw bad(`${where}.value must be a string`);
      return { name, type: type as LabelMatcher['type'], value: v };
    });
    try {
      compileMatchers(matchers);
    } catch (err) {
      throw bad(`selectors[${i}] has a matcher that does not compile: ${err instanceof Error ? err.message : String(err)}`);
    }
    return matchers;
  });
}
