import type { StreamEvent } from './api.js';

/** PointResult is one point as the default format's `result` event carries it. */
export interface PointResult {
  tags: Record<string, unknown>;
  label: string;
  timestamp: number;
  /** value of a float point; a native histogram sample has `histogram` instead. */
  value?: number;
  histogram?: Record<string, unknown>;
}

/** RowResult is one raw log row as the default format's `result` event carries it. */
export interface RowResult {
  timestamp: number;
  tags: Record<string, unknown>;
}

/**
 * CompactReader reads the compact result format a query asks for with `format: "compact"`:
 * `series` and `stream` events name an id once, `points` and `rows` events carry columns that
 * refer to it (a points event's numbers as JSON, or as base64 doubles with `columns:
 * "float64"`). It hands each point or row on in the shape of a default `result` event, so the
 * panels draw the same whichever format arrived.
 */
export class CompactReader {
  private readonly series = new Map<number, { tags: Record<string, unknown>; label: string }>();
  private readonly streams = new Map<number, Record<string, unknown>>();

  /**
   * read takes one event; it returns how many results the event carried (0 for `series`,
   * `stream` and events that are not compact results).
   */
  read(event: StreamEvent, onPoint: (point: PointResult) => void, onRow: (row: RowResult) => void): number {
    const d = event.data;
    switch (event.type) {
      case 'series':
        this.series.set(d.id as number, { tags: (d.tags ?? {}) as Record<string, unknown>, label: String(d.label ?? '') });
        return 0;
      case 'stream':
        this.streams.set(d.id as number, (d.tags ?? {}) as Record<string, unknown>);
        return 0;
      case 'points': {
        const s = this.series.get(d.id as number);
        if (s === undefined) return 0;
        // A points event carries either float values or native histogram samples.
        const histograms = d.histograms as Array<Record<string, unknown>> | undefined;
        const values = histograms === undefined ? numberColumn(d.values as number[] | string) : undefined;
        const timestamps = timesOf(d, histograms?.length ?? values!.length);
        if (histograms !== undefined) {
          for (let i = 0; i < timestamps.length; i++) onPoint({ tags: s.tags, label: s.label, timestamp: timestamps[i], histogram: histograms[i] });
          return timestamps.length;
        }
        for (let i = 0; i < timestamps.length; i++) onPoint({ tags: s.tags, label: s.label, timestamp: timestamps[i], value: values![i] });
        return timestamps.length;
      }
      case 'rows': {
        const ids = d.streams as number[];
        const timestamps = d.timestamps as number[];
        const lines = d.lines as Array<string | null>;
        for (let i = 0; i < ids.length; i++) {
          const tags = { ...(this.streams.get(ids[i]) ?? {}) };
          if (lines[i] !== null) tags.message = lines[i];
          onRow({ timestamp: timestamps[i], tags });
        }
        return ids.length;
      }
      default:
        return 0;
    }
  }
}

/**
 * timesOf reads a points event's `count` times: its `timestamps` column, or (float64 columns
 * over a regular grid) `start` and `step`.
 */
function timesOf(d: Record<string, unknown>, count: number): ArrayLike<number> {
  if (d.timestamps !== undefined) return numberColumn(d.timestamps as number[] | string);
  const start = d.start as number;
  const step = d.step as number;
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/** numberColumn reads a points event's column: JSON numbers, or base64 of little-endian doubles. */
export function numberColumn(column: number[] | string): ArrayLike<number> {
  if (typeof column !== 'string') return column;
  const binary = atob(column);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float64Array(bytes.buffer, 0, bytes.length >> 3);
}
