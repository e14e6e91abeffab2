import { EngineError } from '../engine/index.js';
import { MetaUnavailableError } from './meta/types.js';

/**
 * ERROR_STATUS is the one table from error code to HTTP status. Every error the service
 * answers with goes through it, so the spec's error table lives in exactly one place.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  INVALID_EXPR: 400,
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SSE_UNSUPPORTED: 406,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  COMPILE_ERROR: 422,
  RATE_LIMITED: 429,
  CLIENT_CLOSED: 499,
  INTERNAL_ERROR: 500,
  REWRITE_UNSUPPORTED: 501,
  SERVICE_UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** ErrorBody is the JSON body of every error sent before a stream starts. */
export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  /** position is the offending range of an expression, for INVALID_EXPR and COMPILE_ERROR. */
  position?: { start: number; end: number };
  /** details carries what a client acts on for some errors: validation findings, the current version on 412. */
  details?: Record<string, unknown>;
}

/**
 * ApiError is what route handlers throw to answer with an error; the HTTP layer renders it.
 * `headers` carries extras such as Retry-After or Allow.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly position: { start: number; end: number } | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; position?: { start: number; end: number }; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.position = options.position;
    this.details = options.details;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { status: this.status, code: this.code, message: this.message };
    if (this.position) body.position = this.position;
    if (this.details) body.details = this.details;
    return body;
  }
}

const ENGINE_TO_API: Record<EngineError['code'], ErrorCode> = {
  INVALID_EXPR: 'INVALID_EXPR',
  COMPILE_ERROR: 'COMPILE_ERROR',
  REWRITE_UNSUPPORTED: 'REWRITE_UNSUPPORTED',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  RESOURCE_EXHAUSTED: 'VALIDATION_FAILED',
  // Never used for a message: toApiError answers the engine's internal errors generically.
  INTERNAL_ERROR: 'INTERNAL_ERROR',
};

/** internalError is the one answer to an unexpected failure: no detail, the query id to quote. */
export function internalError(queryId?: string): ApiError {
  const reference = queryId === undefined ? '' : ` (query id ${queryId}; the server log has the details)`;
  return new ApiError('INTERNAL_ERROR', `internal server error${reference}`);
}

/**
 * toApiError turns anything thrown into an ApiError. Unknown failures, and the engine's own
 * INTERNAL_ERROR (a JavaScript exception caught in a worker), become a generic INTERNAL_ERROR
 * naming the query id, so internal details (exception text, paths, stack traces) never reach a
 * client; the caller logs the original.
 */
export function toApiError(err: unknown, queryId?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof MetaUnavailableError) return new ApiError('SERVICE_UNAVAILABLE', 'the metadata store is unavailable; retry shortly');
  if (err instanceof EngineError && err.code !== 'INTERNAL_ERROR') {
    return new ApiError(ENGINE_TO_API[err.code], err.message, { position: err.position });
  }
  return internalError(queryId);
}
