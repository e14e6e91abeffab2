import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { RequestFailure, type StreamEvent } from './api.js';
import { CompactReader } from './compactReader.js';
import { batchedQuery } from './queryBatch.js';
import { SeriesStore } from './series.js';

/** QuerySpec is one query a panel runs. */
export interface QuerySpec {
  q: string;
  language: 'promql' | 'logql';
  /** raw asks for log lines (limit, newest first) rather than points. */
  raw?: boolean;
  limit?: number;
}

/** LogLine is one row of a raw log query. */
export interface LogLine {
  timestamp: number;
  tags: Record<string, unknown>;
}

/** RunState is what a panel draws while and after its streams run. */
export interface RunState {
  store: SeriesStore;
  lines: LogLine[];
  /** running counts the streams still open (at least 1 while `waiting`). */
  running: number;
  /** waiting is set while the queries cannot be sent yet: a variable's first option has not arrived. */
  waiting?: boolean;
  /** received counts result events so far, shown as progress. */
  received: number;
  /** error is the message of a query that was refused. */
  error: string | undefined;
  /** warning is set when a stream ended with done status error (partial results). */
  warning: string | undefined;
  /** version changes whenever new data arrived, to redraw. */
  version: number;
  finishedAt: number | undefined;
}

export interface RunWindow {
  s: string;
  e: string;
  maxDataPoints: number;
}

/** PARTIAL_REDRAW_MS is the least time between two redraws of a panel's partial results. */
const PARTIAL_REDRAW_MS = 150;

function emptyState(running: number): RunState {
  return { store: new SeriesStore(), lines: [], running, received: 0, error: undefined, warning: undefined, version: 0, finishedAt: undefined };
}

/**
 * useQueryRun streams every query of a panel at once (in the batches of lib/queryBatch.ts,
 * shared with the other panels of the render). A panel draws its first points as soon as the
 * server sends them, further partial results at most every PARTIAL_REDRAW_MS, and the
 * complete result at once. A new `key` (queries, range or refresh tick) aborts the streams
 * still open.
 */
export function useQueryRun(queries: QuerySpec[] | undefined, window: RunWindow, key: string): RunState {
  const [state, setState] = useState<RunState>(() => emptyState(queries?.length ?? 0));
  const frame = useRef(0);

  // A layout effect sends the requests as soon as the panel is in the DOM, before the browser
  // paints the dashboard, rather than an effect's frame later.
  useLayoutEffect(() => {
    if (!queries || queries.length === 0) {
      setState(emptyState(0));
      return;
    }
    const controller = new AbortController();
    const run = emptyState(queries.length);
    let scheduled = false;
    let wait: ReturnType<typeof setTimeout> | undefined;
    let lastPublished = -Infinity;
    const publish = (): void => {
      if (controller.signal.aborted) return;
      run.version++;
      lastPublished = performance.now();
      setState({ ...run });
    };
    // Partial results are drawn at most every PARTIAL_REDRAW_MS: with every panel's streams
    // arriving at once, a redraw per animation frame per panel kept the main thread busy
    // drawing what the next slice replaces, and delayed the complete results.
    const schedule = (): void => {
      if (scheduled) return;
      scheduled = true;
      wait = setTimeout(
        () => {
          frame.current = requestAnimationFrame(() => {
            scheduled = false;
            publish();
          });
        },
        Math.max(0, lastPublished + PARTIAL_REDRAW_MS - performance.now()),
      );
    };
    queries.forEach((query, index) => {
      // The compact format carries each series' tags once and its points as columns: the same
      // results in about a tenth of the bytes and JSON parsing. Its float64 columns are the
      // numbers' own bytes, so no value is formatted on the server or parsed here.
      const body: Record<string, unknown> = { q: query.q, s: window.s, e: window.e, format: 'compact', columns: 'float64' };
      const compact = new CompactReader();
      if (query.raw) {
        body.limit = query.limit ?? 100;
        body.reverse = true;
      } else {
        body.maxDataPoints = window.maxDataPoints;
      }
      const onEvent = (event: StreamEvent): void => {
        if (event.type === 'result') {
          run.received++;
          if (query.raw) run.lines.push({ timestamp: Number(event.data.timestamp), tags: (event.data.tags ?? {}) as Record<string, unknown> });
          else run.store.add(index, event.data);
          schedule();
        } else if (event.type === 'points' || event.type === 'rows' || event.type === 'series' || event.type === 'stream') {
          const carried = compact.read(
            event,
            (point) => run.store.add(index, point as unknown as Record<string, unknown>),
            (row) => run.lines.push(row),
          );
          if (carried > 0) {
            run.received += carried;
            schedule();
          }
        } else if (event.type === 'done' && event.data.status === 'error') {
          const message = typeof event.data.message === 'string' ? event.data.message : 'part of the query could not be answered';
          run.warning = `Partial results: ${message}`;
        } else if (event.type === 'error') {
          run.error = String(event.data.message ?? 'the query failed');
        }
      };
      batchedQuery(query.language === 'logql' ? 'logs' : 'metrics', body, onEvent, controller.signal)
        .catch((err: unknown) => {
          if (controller.signal.aborted) return;
          run.error = err instanceof RequestFailure ? `${err.code}: ${err.message}` : String(err);
        })
        .finally(() => {
          if (controller.signal.aborted) return;
          run.running--;
          if (run.running === 0) {
            run.finishedAt = performance.now();
            // The complete result is drawn now; a partial redraw still waiting has nothing to add.
            clearTimeout(wait);
            cancelAnimationFrame(frame.current);
            scheduled = false;
          }
          publish();
        });
    });
    // The panel shows its new run after its queries were handed to the batch: this state's
    // re-render of every panel then comes after the batch's requests were sent, not before.
    setState({ ...run });
    return () => {
      controller.abort();
      clearTimeout(wait);
      cancelAnimationFrame(frame.current);
    };
  }, [key]);

  return state;
}
