import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RawRow } from '../../../../engine/index.js';
import type { QueryWindow } from '../../../query/timeRange.js';
import { ToolError, textResult, type CallContext, type JsonSchema, type ToolSpec } from '../../driver.js';
import { budgetOf } from '../../format.js';
import type { CheckedQuery, TelemetryAccess } from './access.js';
import { emptyResultHints } from './hints.js';
import { renderRows, renderSeries, windowText } from './render.js';
import { END, MAX_TOKENS, READ_ONLY, START, WINDOW_OUTPUT } from './schemaParts.js';

/** Series caps: how many series a summary may list, and with points (each costs a line of values). */
const MAX_SUMMARY_SERIES = 500;
const MAX_POINT_SERIES = 50;
const DEFAULT_LOG_LIMIT = 100;
const MAX_LOG_LIMIT = 2000;

const SERIES_PROPERTIES = {
  query: { type: 'string' },
  window: WINDOW_OUTPUT,
  seriesTotal: { type: 'integer' },
  series: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        series: { type: 'string' },
        labels: { type: 'object' },
        min: { type: 'number' },
        max: { type: 'number' },
        avg: { type: 'number' },
        last: { type: 'number' },
        trend: { type: 'string' },
        points: { type: 'array', items: { type: ['number', 'null'] } },
        histogram: {
          type: 'object',
          description: 'Native histogram series (values are observation counts): percentiles of the observations over the window (p50, p90, p95, p99) and their mean.',
          properties: { percentiles: { type: 'object', additionalProperties: { type: 'number' } }, mean: { type: 'number' } },
        },
      },
    },
  },
  truncated: { type: 'boolean' },
  hints: { type: 'array', items: { type: 'string' } },
};

const SERIES_OUTPUT: JsonSchema = { type: 'object', properties: SERIES_PROPERTIES, required: ['query', 'series', 'truncated'] };

/** LOGS_OUTPUT covers both answers of query_logs: rows for a log query, series for a metric query. */
const LOGS_OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    ...SERIES_PROPERTIES,
    columns: { type: 'array', items: { type: 'string' } },
    rows: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
    common: { type: 'object', additionalProperties: { type: 'string' } },
    returned: { type: 'integer' },
    nextCursor: { type: 'string' },
  },
  required: ['query', 'truncated'],
};

function windowOf(window: QueryWindow): { start: string; end: string; stepSeconds: number } {
  return { start: new Date(window.startMs).toISOString(), end: new Date(window.endMs).toISOString(), stepSeconds: window.stepMs / 1000 };
}

/**
 * answerSeries runs a series query and renders it: summaries (or points), a truncation note
 * with how to narrow, or, when empty, the likely causes.
 */
async function answerSeries(access: TelemetryAccess, ctx: CallContext, query: CheckedQuery, window: QueryWindow, args: Record<string, unknown>): Promise<CallToolResult> {
  const series = await access.series(ctx.orgId, query, window, ctx.signal);
  const withPoints = args.points === true;
  const rendered = renderSeries(series, window, withPoints, budgetOf(args.maxTokens), withPoints ? MAX_POINT_SERIES : MAX_SUMMARY_SERIES);
  const head = `${query.language === 'promql' ? 'PromQL' : 'LogQL'} ${query.q}\n${windowText(window)}: ${rendered.total} series`;
  const structured: Record<string, unknown> = { query: query.q, window: windowOf(window), seriesTotal: rendered.total, series: rendered.rows, truncated: rendered.truncated };
  if (rendered.total === 0) {
    const hints = emptyResultHints(access.storage, ctx.orgId, query, window);
    structured.hints = hints;
    return textResult(`${head}\nNo data. Likely causes:\n${hints.map((h) => `- ${h}`).join('\n')}`, structured);
  }
  let text = `${head}\n${rendered.text}`;
  if (rendered.truncated) {
    text += `\n[truncated: ${rendered.rows.length} of ${rendered.total} series shown, ${window.instant ? 'in the query\'s order' : 'largest first'}. Narrow with label matchers, aggregate with sum by (...) or topk(10, ...), or raise maxTokens.]`;
  }
  return textResult(text, structured);
}

/** Cursor is where the next page of log rows starts: the last row's time and how many rows at that exact time were returned. */
interface Cursor {
  ns: bigint;
  n: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.ns}:${c.n}`).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const m = /^(\d+):(\d+)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!m) throw new ToolError('cursor is not one this tool returned; repeat the call without it');
  return { ns: BigInt(m[1]), n: Number(m[2]) };
}

/** pageRows drops the rows a cursor says were returned already (newer than it, or the first n at its instant). */
function pageRows(rows: RawRow[], cursor: Cursor | undefined, forward: boolean): RawRow[] {
  if (!cursor) return rows;
  let skip = cursor.n;
  return rows.filter((row) => {
    if (forward ? row.timestampNs < cursor.ns : row.timestampNs > cursor.ns) return false;
    if (row.timestampNs === cursor.ns && skip > 0) {
      skip--;
      return false;
    }
    return true;
  });
}

function cursorAfter(rows: readonly RawRow[], previous: Cursor | undefined): Cursor {
  const last = rows[rows.length - 1].timestampNs;
  let n = 0;
  for (let i = rows.length - 1; i >= 0 && rows[i].timestampNs === last; i--) n++;
  if (previous && previous.ns === last) n += previous.n;
  return { ns: last, n };
}

async function answerLogs(access: TelemetryAccess, ctx: CallContext, query: CheckedQuery, args: Record<string, unknown>): Promise<CallToolResult> {
  const forward = args.direction === 'forward';
  const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_LOG_LIMIT;
  const cursor = typeof args.cursor === 'string' ? decodeCursor(args.cursor) : undefined;
  let window = access.window(args);
  if (cursor) {
    const ms = Number(cursor.ns / 1_000_000n);
    window = forward ? { ...window, startMs: Math.max(window.startMs, ms) } : { ...window, endMs: Math.min(window.endMs, ms) };
    if (window.endMs < window.startMs) window = { ...window, endMs: window.startMs };
  }
  // Rows the cursor already returned come back at its boundary; fetch enough to skip them. A
  // full page offers a cursor: the next page may be empty, but asking one row more would often
  // cost a whole further slice of the window.
  const fetched = await access.logs(ctx.orgId, query, window, limit + (cursor?.n ?? 0), !forward, ctx.signal);
  const rows = pageRows(fetched, cursor, forward);
  const more = rows.length >= limit;
  const page = rows.slice(0, limit);
  const rendered = renderRows(page, budgetOf(args.maxTokens));
  const shown = page.slice(0, rendered.returned);
  const truncated = rendered.truncated || more;
  const structured: Record<string, unknown> = {
    query: query.q,
    window: windowOf(window),
    columns: rendered.columns,
    rows: rendered.rows,
    common: rendered.common,
    returned: rendered.returned,
    truncated,
  };
  const head = `LogQL ${query.q}\n${windowText(window).replace(/, step .*/, '')}: ${rendered.returned} lines, ${forward ? 'oldest' : 'newest'} first`;
  if (rendered.returned === 0) {
    const hints = emptyResultHints(access.storage, ctx.orgId, query, window);
    structured.hints = hints;
    return textResult(`${head}\nNo lines. Likely causes:\n${hints.map((h) => `- ${h}`).join('\n')}`, structured);
  }
  let text = `${head}\n${rendered.text}`;
  if (truncated) {
    const next = encodeCursor(cursorAfter(shown, cursor));
    structured.nextCursor = next;
    text += `\n[more lines: call again with cursor "${next}" for the next page, or narrow with a line filter (|= "error"), a label matcher, or a shorter window. log_patterns summarises many lines.]`;
  }
  return textResult(text, structured);
}

/** queryTools are the two query tools: PromQL over metrics, LogQL over logs. */
export function queryTools(access: TelemetryAccess): ToolSpec[] {
  return [
    {
      name: 'query_metrics',
      title: 'Query metrics (PromQL)',
      description:
        'Run a PromQL range query. Returns one line per series: min,max,avg,last,trend (largest first; at one instant, start = end, in the order sort() or topk() give); points=true adds values on the step grid. Native histogram series count observations, with their percentiles over the window on the next line. Example: sum by (service_name) (rate(http_requests_total{code=~"5.."}[5m])). Empty results come with likely causes.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'PromQL expression.' },
          start: START,
          end: END,
          step: { type: 'integer', minimum: 1, description: 'Step in seconds (default: automatic, ~100 points).' },
          points: { type: 'boolean', description: 'Include values per step (max 50 series).' },
          maxTokens: MAX_TOKENS,
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: SERIES_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const query = access.check('promql', args.query as string);
        return answerSeries(access, ctx, query, access.window({ ...args, maxDataPoints: args.maxDataPoints ?? 100 }), args);
      },
    },
    {
      name: 'query_logs',
      title: 'Query logs (LogQL)',
      description:
        'Run a LogQL query. A log query returns lines as CSV (newest first; tags equal in every row shown once); page with cursor. A metric query (count_over_time, rate, ...) returns series like query_metrics. Example: {service_name="payments"} |= "error" | logfmt.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'LogQL expression.' },
          start: START,
          end: END,
          limit: { type: 'integer', minimum: 1, maximum: MAX_LOG_LIMIT, description: `Max lines (default ${DEFAULT_LOG_LIMIT}).` },
          direction: { type: 'string', enum: ['backward', 'forward'], description: 'backward = newest first (default).' },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
          step: { type: 'integer', minimum: 1, description: 'Metric queries: step in seconds.' },
          points: { type: 'boolean', description: 'Metric queries: include values per step.' },
          maxTokens: MAX_TOKENS,
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: LOGS_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const query = access.check('logql', args.query as string);
        if (query.kind === 'series') return answerSeries(access, ctx, query, access.window({ ...args, maxDataPoints: 100 }), args);
        return answerLogs(access, ctx, query, args);
      },
    },
  ];
}
