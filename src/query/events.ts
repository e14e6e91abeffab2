import { formatLabels, type Labels, type SeriesColumns } from '../../engine/index.js';
import type { SseEvent } from '../http/sse.js';

/**
 * CANONICAL_INTEGER is an integer written the one way it prints back: no sign but a minus, no
 * leading zero, and not `-0` (JSON would print it as 0).
 */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * renderTags builds a result's `tags`: keys sorted, and values that are integers written as
 * JSON integers (the spec's rule), e.g. `{"code": 500}`. Only canonical integers convert, so
 * a value reads back as the same text: `007`, `+1`, `-0` and `1e3` stay strings, and so do
 * values too large to be exact in a JSON number, so no client ever sees a rounded id.
 */
export function renderTags(labels: Labels): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const key of Object.keys(labels).sort()) {
    const value = labels[key];
    out[key] = CANONICAL_INTEGER.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }
  return out;
}

/**
 * SeriesRenderer caches each series' rendered tags and display label, which are constant for
 * a series and would otherwise be rebuilt for every point.
 */
export class SeriesRenderer {
  private readonly cache = new WeakMap<Labels, { tags: Record<string, string | number>; label: string }>();

  of(labels: Labels): { tags: Record<string, string | number>; label: string } {
    let entry = this.cache.get(labels);
    if (!entry) this.cache.set(labels, (entry = { tags: renderTags(labels), label: formatLabels(labels) }));
    return entry;
  }

  /**
   * pointEvents turns series into one result event per (series, timestamp), time-major so a
   * chart fills left to right; NaN and infinities are dropped, as the spec requires. Events
   * are made as the stream takes them, so a slice's events never all exist at once.
   */
  *pointEvents(series: readonly SeriesColumns[]): Generator<SseEvent, void, undefined> {
    const cursors = new Uint32Array(series.length);
    const rendered = series.map((s) => this.of(s.labels));
    for (;;) {
      let next = Infinity;
      for (let i = 0; i < series.length; i++) {
        const ts = series[i].timestampsMs;
        if (cursors[i] < ts.length && ts[cursors[i]] < next) next = ts[cursors[i]];
      }
      if (next === Infinity) break;
      for (let i = 0; i < series.length; i++) {
        const s = series[i];
        const c = cursors[i];
        if (c >= s.timestampsMs.length || s.timestampsMs[c] !== next) continue;
        cursors[i]++;
        const value = s.values[c];
        if (!Number.isFinite(value)) continue;
        yield { type: 'result', data: { tags: rendered[i].tags, value, timestamp: next, label: rendered[i].label } };
      }
    }
  }
}
