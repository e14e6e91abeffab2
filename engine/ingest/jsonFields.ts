/**
 * Typed access to parsed JSON bodies. Each helper checks one field's type and, when it is
 * wrong, throws a BAD_REQUEST naming the field's path (`resourceLogs[0].scopeLogs[2].
 * logRecords[5].timeUnixNano`), so a producer with a bad serializer learns exactly what to
 * fix. Absent fields read as the protobuf default, as protojson does.
 */
import { badRequest } from './errors.js';

/** JsonObject is a parsed JSON object. */
export type JsonObject = Record<string, unknown>;

const textDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** parseJsonBody parses a request body as JSON, reporting the parser's reason on failure. */
export function parseJsonBody(body: Uint8Array): JsonObject {
  const text = textDecoder.decode(body);
  if (text.trim() === '') throw badRequest('body is empty; expected a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw badRequest(`body is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('body must be a JSON object');
  }
  return parsed as JsonObject;
}

/** pick reads a field by its lowerCamelCase name, falling back to the proto (snake_case) name. */
export function pick(obj: JsonObject, camel: string, snake?: string): unknown {
  const v = obj[camel];
  if (v !== undefined || snake === undefined) return v;
  return obj[snake];
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** asObject checks an optional object field; absent or null reads as undefined. */
export function asObject(v: unknown, path: string): JsonObject | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${path}: expected an object, got ${describe(v)}`);
  return v as JsonObject;
}

/** asArray checks a repeated field; absent or null reads as empty. */
export function asArray(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badRequest(`${path}: expected an array, got ${describe(v)}`);
  return v;
}

/** asString checks a string field; absent reads as ''. */
export function asString(v: unknown, path: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw badRequest(`${path}: expected a string, got ${describe(v)}`);
  return v;
}

/** asBool checks a bool field; absent reads as false. */
export function asBool(v: unknown, path: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw badRequest(`${path}: expected true or false, got ${describe(v)}`);
  return v;
}

const UNSIGNED_DIGITS = /^\d+$/;
const SIGNED_DIGITS = /^-?\d+$/;

/**
 * asUint64Text checks a uint64 field, which protojson writes as a decimal string but also
 * accepts as a number, and returns its decimal digits ('0' when absent).
 */
export function asUint64Text(v: unknown, path: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'string' && UNSIGNED_DIGITS.test(v)) return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v).toString();
  throw badRequest(`${path}: expected an unsigned 64-bit integer (decimal string), got ${describe(v)}`);
}

const MAX_UINT64 = 0xffffffffffffffffn;

/**
 * readTimeNanos reads a timestamp field (uint64 nanoseconds) leniently: a malformed one costs
 * only the record that carries it, so instead of throwing it returns why it is not a time.
 * Absent reads as 0n.
 */
export function readTimeNanos(v: unknown, path: string): bigint | string {
  if (v === undefined || v === null) return 0n;
  let ns: bigint | undefined;
  if (typeof v === 'string' && UNSIGNED_DIGITS.test(v)) ns = BigInt(v);
  else if (typeof v === 'number' && Number.isInteger(v) && v >= 0) ns = BigInt(v);
  if (ns === undefined || ns > MAX_UINT64) {
    const shown = typeof v === 'string' && v.length > 40 ? `string ${JSON.stringify(v.slice(0, 40))}…` : describe(v);
    return `${path}: expected an unsigned 64-bit integer of nanoseconds (decimal string), got ${shown}`;
  }
  return ns;
}

/** asUint64Number reads a uint64 field as a number (counts; exact below 2^53). */
export function asUint64Number(v: unknown, path: string): number {
  return Number(asUint64Text(v, path));
}

/** asInt64 reads an int64 field exactly: a number when it fits, a bigint otherwise. */
export function asInt64(v: unknown, path: string): number | bigint {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && SIGNED_DIGITS.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
    const big = BigInt(v);
    if (big > 0x7fffffffffffffffn || big < -0x8000000000000000n) {
      throw badRequest(`${path}: ${v} does not fit in a 64-bit integer`);
    }
    return big;
  }
  throw badRequest(`${path}: expected a 64-bit integer (decimal string), got ${describe(v)}`);
}

/** asInt32 reads an int32 field (a number or a decimal string). */
export function asInt32(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' && SIGNED_DIGITS.test(v) ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff) return n;
  throw badRequest(`${path}: expected a 32-bit integer, got ${describe(v)}`);
}

/**
 * asDouble reads a double field: a JSON number, or one of the strings protojson uses for
 * what JSON cannot spell ("NaN", "Infinity", "-Infinity") or a numeric string.
 */
export function asDouble(v: unknown, path: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v === 'NaN') return NaN;
    if (v === 'Infinity') return Infinity;
    if (v === '-Infinity') return -Infinity;
    const n = Number(v);
    if (v.trim() !== '' && !Number.isNaN(n)) return n;
  }
  throw badRequest(`${path}: expected a number, got ${describe(v)}`);
}

/**
 * asEnum reads an enum field given as its number or its name, using `names` to map names to
 * numbers, as protojson accepts both.
 */
export function asEnum(v: unknown, path: string, names: Readonly<Record<string, number>>): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const n = names[v];
    if (n !== undefined) return n;
  }
  throw badRequest(`${path}: expected an enum number or name, got ${describe(v)}`);
}
