import { formatLabels, inNameOrder, type Labels, type RawRow, type SeriesColumns } from '../../engine/index.js';
import { frame, type SseEvent } from '../../src/http/sse.js';
import { inferPointGrid, POINT_BLOCK_STEPS, renderTags, type PointGrid } from '../../src/query/events.js';

/**
 * The event encoder as it was before events were rendered straight to text: one event object
 * per point or row, framed by `frame()` with a JSON.stringify each. It is kept as the baseline
 * of the encoder benchmark and as the reference the new encoder must match byte for byte. A
 * label's text has its names in order, as every series' label has since series came keyed.
 */

const NS_PER_MS = 1_000_000n;

/**
 * legacyPointEvents yields one result event object per finite point, in the order the spec
 * encoder writes them: blocks of POINT_BLOCK_STEPS steps of the grid in time order, within a
 * block series by series, each in time order (one block when there is no grid).
 */
export function* legacyPointEvents(series: readonly SeriesColumns[], grid: PointGrid | undefined = inferPointGrid(series)): Generator<SseEvent, void, undefined> {
  const cache = new WeakMap<Labels, { tags: Record<string, string | number>; label: string }>();
  const of = (labels: Labels): { tags: Record<string, string | number>; label: string } => {
    let entry = cache.get(labels);
    if (!entry) cache.set(labels, (entry = { tags: renderTags(labels), label: formatLabels(inNameOrder(labels)) }));
    return entry;
  };
  const rendered = series.map((s) => of(s.labels));
  const blockOf = (t: number): number => (grid === undefined ? 0 : Math.floor((t - grid.startMs) / (grid.stepMs * POINT_BLOCK_STEPS)));
  const cursors = new Uint32Array(series.length);
  for (;;) {
    let block = Infinity;
    for (let i = 0; i < series.length; i++) {
      const ts = series[i].timestampsMs;
      if (cursors[i] < ts.length) block = Math.min(block, blockOf(ts[cursors[i]]));
    }
    if (block === Infinity) return;
    for (let i = 0; i < series.length; i++) {
      const s = series[i];
      for (; cursors[i] < s.timestampsMs.length && blockOf(s.timestampsMs[cursors[i]]) === block; cursors[i]++) {
        const timestamp = s.timestampsMs[cursors[i]];
        const value = s.values[cursors[i]];
        if (Number.isFinite(value)) yield { type: 'result', data: { tags: rendered[i].tags, value, timestamp, label: rendered[i].label } };
      }
    }
  }
}

/** legacyRowEvent renders one raw log row as an event carrying its hand-written JSON. */
export function legacyRowEvent(row: RawRow): SseEvent {
  let parts = rowParts.get(row.tags);
  if (!parts) rowParts.set(row.tags, (parts = splitAtMessage(row.tags)));
  const pieces: string[] = [];
  if (parts.before !== '') pieces.push(parts.before);
  if (row.line !== undefined) pieces.push(`"message":${JSON.stringify(row.line)}`);
  if (parts.after !== '') pieces.push(parts.after);
  const json = `{"timestamp":${row.timestampNs / NS_PER_MS},"timestamp_ns":${row.timestampNs},"tags":{${pieces.join(',')}}}`;
  return { type: 'result', data: undefined, json };
}

const rowParts = new WeakMap<Labels, { before: string; after: string }>();

function splitAtMessage(tags: Labels): { before: string; after: string } {
  const before: string[] = [];
  const after: string[] = [];
  for (const key of Object.keys(tags).sort()) (key < 'message' ? before : after).push(`${JSON.stringify(key)}:${JSON.stringify(tags[key])}`);
  return { before: before.join(','), after: after.join(',') };
}

/** legacyText frames events the old way, one JSON.stringify per event. */
export function legacyText(events: Iterable<SseEvent>): string {
  let text = '';
  for (const e of events) text += frame(e);
  return text;
}
