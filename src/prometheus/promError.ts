import { EngineError } from '../../engine/index.js';
import { ApiError } from '../errors.js';

/**
 * Errors of the Prometheus-compatible API. Prometheus clients (Grafana, promtool, rule
 * evaluators) read `errorType` and the HTTP status, not Sluice's error codes, so these routes
 * answer in Prometheus' own envelope: `{"status":"error","errorType":...,"error":...}`.
 */

export type PromErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal' | 'unavailable' | 'not_found';

/** PROM_ERROR_STATUS is Prometheus' status for each error type (api.go's respondError). */
const PROM_ERROR_STATUS: Record<PromErrorType, number> = {
  bad_data: 400,
  execution: 422,
  timeout: 503,
  canceled: 503,
  internal: 500,
  unavailable: 503,
  not_found: 404,
};

/** PromError is what the Prometheus handlers throw; `headers` carries Retry-After where due. */
export class PromError extends Error {
  constructor(
    readonly type: PromErrorType,
    message: string,
    readonly headers: Record<string, string> = {},
    /** statusOverride keeps the service's status where Prometheus has no equivalent (a key without access: 403). */
    private readonly statusOverride?: number,
  ) {
    super(message);
    this.name = 'PromError';
  }

  get status(): number {
    return this.statusOverride ?? PROM_ERROR_STATUS[this.type];
  }
}

/** invalidParam words a rejected parameter the way Prometheus does: `invalid parameter "step": ...`. */
export function invalidParam(name: string, reason: string): PromError {
  return new PromError('bad_data', `invalid parameter ${JSON.stringify(name)}: ${reason}`);
}

/**
 * toPromError classifies a failure. `phase` says whether the query was still being read and
 * checked (then anything the service rejects is bad_data, as Prometheus rejects parse and type
 * errors) or already running (then an engine refusal is an execution error, 422).
 */
export function toPromError(err: unknown, phase: 'check' | 'run'): PromError {
  if (err instanceof PromError) return err;
  if (err instanceof ApiError) {
    switch (err.code) {
      case 'DEADLINE_EXCEEDED':
        return new PromError('timeout', `query timed out in expression evaluation: ${err.message}`);
      case 'CLIENT_CLOSED':
        return new PromError('canceled', 'query was canceled in expression evaluation');
      case 'RATE_LIMITED':
      case 'SERVICE_UNAVAILABLE':
        return new PromError('unavailable', err.message, err.headers);
      case 'INTERNAL_ERROR':
        return new PromError('internal', err.message);
      case 'FORBIDDEN':
      case 'UNAUTHORIZED':
        return new PromError('bad_data', err.message, err.headers, err.status);
      case 'NOT_FOUND':
        return new PromError('not_found', err.message);
      default:
        return new PromError(phase === 'check' ? 'bad_data' : 'execution', err.message);
    }
  }
  if (err instanceof EngineError) {
    if (err.code === 'DEADLINE_EXCEEDED') return new PromError('timeout', `query timed out in expression evaluation: ${err.message}`);
    if (err.code === 'INTERNAL_ERROR') return new PromError('internal', 'internal error in expression evaluation');
    return new PromError(phase === 'check' ? 'bad_data' : 'execution', err.message);
  }
  return new PromError('internal', 'internal server error');
}

/** errorBody renders Prometheus' error envelope. */
export function errorBody(err: PromError): string {
  return JSON.stringify({ status: 'error', errorType: err.type, error: err.message });
}
