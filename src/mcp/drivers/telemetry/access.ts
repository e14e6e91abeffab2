import {
  EngineError,
  checkLogQL,
  formatPositionedError,
  logqlQueryKind,
  parseAndCheckPromQL,
  parseLogQL,
  promqlValueType,
  type LogQLExpr,
  type PromQLExpr,
  type RawRow,
  type SeriesColumns,
  type Storage,
} from '../../../../engine/index.js';
import { ApiError } from '../../../errors.js';
import type { QueryCollector } from '../../../query/collect.js';
import { resolveWindow, type QueryWindow, type WindowLimits } from '../../../query/timeRange.js';
import { ToolError } from '../../driver.js';

/**
 * TelemetryAccess is what the telemetry and common drivers know of the query service: the
 * org's storage for listings, and the in-process query collector for PromQL and LogQL. Every
 * failure a model can fix comes out as a ToolError whose message says how.
 */
export interface TelemetryAccessDeps {
  storage: Storage;
  collector: QueryCollector;
  windowLimits: WindowLimits;
  /** maxSeries bounds what one tool query may hold in memory, whatever the output budget. */
  maxSeries: number;
  /** maxLogRows bounds the rows one tool query reads. */
  maxLogRows: number;
}

export type Language = 'promql' | 'logql';

export interface WindowArgs {
  start?: unknown;
  end?: unknown;
  step?: unknown;
  maxDataPoints?: unknown;
}

/** CheckedQuery is a parsed query and what it yields. */
export type CheckedQuery =
  | { language: 'promql'; q: string; expr: PromQLExpr; kind: 'series' }
  | { language: 'logql'; q: string; expr: LogQLExpr; kind: 'series' | 'logs' };

export class TelemetryAccess {
  constructor(readonly deps: TelemetryAccessDeps) {}

  get storage(): Storage {
    return this.deps.storage;
  }

  /**
   * window resolves start/end/step as the query API does (now-1h, RFC 3339, epoch seconds or
   * milliseconds, e-3w), defaulting to the last hour and an automatic step.
   */
  window(args: WindowArgs, defaultStart = 'now-1h'): QueryWindow {
    try {
      return resolveWindow(
        { s: args.start ?? defaultStart, e: args.end, step: args.step, maxDataPoints: args.maxDataPoints },
        this.deps.windowLimits,
      );
    } catch (err) {
      throw asToolError(err);
    }
  }

  /**
   * check parses and type-checks a query; parse errors carry line:col and the offending text.
   * LogQL is checked as an instant query accepts it; `series` refuses what only an instant may
   * use (approx_topk) once the window says the query runs over a range.
   */
  check(language: Language, q: string): CheckedQuery {
    try {
      if (language === 'promql') {
        const expr = parseAndCheckPromQL(q);
        const type = promqlValueType(expr);
        if (type !== 'vector' && type !== 'scalar') {
          throw new ToolError(`a PromQL query here must yield an instant vector or a scalar, not a ${type === 'matrix' ? 'range vector' : type}; wrap a range selector in a function such as rate(...[5m])`);
        }
        return { language, q, expr, kind: 'series' };
      }
      const expr = parseLogQL(q);
      checkLogQL(expr, q);
      return { language, q, expr, kind: logqlQueryKind(expr) === 'log' ? 'logs' : 'series' };
    } catch (err) {
      if (err instanceof EngineError) throw new ToolError(describeExpressionError(q, err, language));
      throw err;
    }
  }

  /** series runs a series query over `window`, as an instant query when the window is one instant. */
  async series(org: string, query: CheckedQuery, window: QueryWindow, signal: AbortSignal): Promise<SeriesColumns[]> {
    if (query.language === 'logql' && !window.instant) {
      try {
        checkLogQL(query.expr, query.q, { rangeQuery: true });
      } catch (err) {
        if (err instanceof EngineError) throw new ToolError(describeExpressionError(query.q, err, 'logql'));
        throw err;
      }
    }
    try {
      const collected =
        query.language === 'promql'
          ? await this.deps.collector.promql(org, query.q, query.expr, window, this.deps.maxSeries, signal)
          : await this.deps.collector.logqlSeries(org, query.q, query.expr, window, this.deps.maxSeries, signal);
      return collected.series;
    } catch (err) {
      throw asToolError(err);
    }
  }

  async logs(org: string, query: CheckedQuery, window: QueryWindow, limit: number, reverse: boolean, signal: AbortSignal): Promise<RawRow[]> {
    if (query.language !== 'logql' || query.kind !== 'logs') throw new ToolError('this query yields series, not log lines');
    try {
      const collected = await this.deps.collector.logqlRows(org, query.q, query.expr, window, { limit: Math.min(limit, this.deps.maxLogRows), reverse, fields: undefined }, signal);
      return collected.rows;
    } catch (err) {
      throw asToolError(err);
    }
  }
}

/** describeExpressionError renders an engine error as "line:col: message" plus the expression with a caret under the spot. */
export function describeExpressionError(q: string, err: EngineError, language: Language): string {
  const name = language === 'promql' ? 'PromQL' : 'LogQL';
  if (!err.position) return `invalid ${name}: ${err.message}`;
  const kind = err.code === 'INVALID_EXPR' ? 'parse' : 'type';
  const head = formatPositionedError(q, kind, { message: err.message, position: err.position });
  if (q.includes('\n') || q.length > 300) return `invalid ${name}: ${head}`;
  const width = Math.max(1, Math.min(err.position.end, q.length) - err.position.start);
  return `invalid ${name}: ${head}\n  ${q}\n  ${' '.repeat(err.position.start)}${'^'.repeat(width)}`;
}

/** asToolError turns query-service failures into messages a model can act on. */
export function asToolError(err: unknown): unknown {
  if (err instanceof ToolError) return err;
  if (err instanceof ApiError) {
    const advice: Record<string, string> = {
      RATE_LIMITED: ' (too many queries at once for this org; wait a moment and retry)',
      DEADLINE_EXCEEDED: '',
      SERVICE_UNAVAILABLE: '',
    };
    const budget = /too many samples/.test(err.message) ? '; narrow the selector, shorten ranges, or use a coarser subquery step ([1h:1m], not [1h:1s])' : '';
    return new ToolError(`${err.message}${budget || (advice[err.code] ?? '')}`);
  }
  if (err instanceof EngineError) return new ToolError(err.message);
  return err;
}
