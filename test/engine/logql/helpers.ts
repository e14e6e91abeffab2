/**
 * Shared helpers for the LogQL front-end tests: position stripping for structural
 * comparison, and error capture that returns the EngineError so tests can assert its code,
 * message and position.
 */
import { expect } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { checkLogQL, parseLogQL } from '../../../engine/logql/index.js';
import type { CheckOptions, Expr } from '../../../engine/logql/index.js';

/** withoutPositions deep-copies a tree dropping every `pos` field. */
export function withoutPositions<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutPositions(v)) as T;
  if (value instanceof Uint8Array) return value;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'pos') continue;
      out[key] = withoutPositions(v);
    }
    return out as T;
  }
  return value;
}

/** parseAndCheck parses and checks `text`, returning the tree. */
export function parseAndCheck(text: string, options?: CheckOptions): Expr {
  const expr = parseLogQL(text);
  checkLogQL(expr, text, options);
  return expr;
}

/** errorOf runs `fn` and returns the EngineError it throws, failing the test if it does not. */
export function errorOf(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected an EngineError, but nothing was thrown');
}

/** parseError returns the INVALID_EXPR error of parsing `text`. */
export function parseError(text: string): EngineError {
  const err = errorOf(() => parseLogQL(text));
  expect(err.code).toBe('INVALID_EXPR');
  return err;
}

/** checkError returns the COMPILE_ERROR of checking `text`, which must parse. */
export function checkError(text: string, options?: CheckOptions): EngineError {
  const expr = parseLogQL(text);
  const err = errorOf(() => checkLogQL(expr, text, options));
  expect(err.code).toBe('COMPILE_ERROR');
  return err;
}

/** textFrom returns `text` from the start of the error's position, to assert where it points. */
export function textFrom(text: string, err: EngineError): string {
  return text.slice(err.position?.start ?? 0);
}
