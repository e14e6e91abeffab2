/**
 * Helpers that put a compact stream and a default stream side by side: both are reduced to the
 * JSON text of the default's `data:` payloads, so a comparison checks numbers, tags and labels
 * character for character.
 */

/** dataLines splits an SSE body into the payloads of its `data:` events. */
export function dataLines(raw: string): string[] {
  return raw
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n'),
    );
}

/** ExpandedStream is a stream's payloads in the default shape, its result payloads and the others apart. */
export interface ExpandedStream {
  results: string[];
  /** others are the non-result events (done, error, summaries), as sent. */
  others: string[];
  /** eventTypes counts events by type, as received. */
  eventTypes: Record<string, number>;
}

/** splitDefault reads a default stream: `result` payloads apart from the rest. */
export function splitDefault(raw: string): ExpandedStream {
  const out: ExpandedStream = { results: [], others: [], eventTypes: {} };
  for (const line of dataLines(raw)) {
    const type = (JSON.parse(line) as { type: string }).type;
    out.eventTypes[type] = (out.eventTypes[type] ?? 0) + 1;
    if (type === 'result') out.results.push(line);
    else if (type !== 'heartbeat') out.others.push(line);
  }
  return out;
}

interface SeriesInfo {
  tagsJson: string;
  labelJson: string;
}

/**
 * expandCompact rebuilds the default stream's payloads from a compact stream: each `points`
 * event becomes one result payload per column entry, each `rows` row one log row payload.
 * Nanosecond timestamps are read as text (they exceed 2^53); every `points` or `rows` event
 * must refer to a `series` or `stream` event sent before it.
 */
export function expandCompact(raw: string): ExpandedStream {
  const out: ExpandedStream = { results: [], others: [], eventTypes: {} };
  const series = new Map<number, SeriesInfo>();
  const streams = new Map<number, Record<string, string>>();
  for (const line of dataLines(raw)) {
    // Exact nanosecond timestamps become strings before parsing, so none is rounded.
    const exact = line.replace(/"timestamps_ns":\[([0-9,]*)\]/, (_m, list: string) => `"timestamps_ns":[${list === '' ? '' : list.split(',').map((n) => `"${n}"`).join(',')}]`);
    const event = JSON.parse(exact) as { type: string; data: Record<string, unknown> };
    out.eventTypes[event.type] = (out.eventTypes[event.type] ?? 0) + 1;
    const d = event.data;
    if (event.type === 'series') {
      const id = d.id as number;
      if (series.has(id)) throw new Error(`series ${id} announced twice`);
      series.set(id, { tagsJson: JSON.stringify(d.tags), labelJson: JSON.stringify(d.label) });
    } else if (event.type === 'points') {
      const s = series.get(d.id as number);
      if (s === undefined) throw new Error(`points for unannounced series ${String(d.id)}`);
      const vs = numberColumn(d.values as number[] | string);
      const ts = timesOf(d, vs.length);
      if (ts.length !== vs.length || ts.length === 0) throw new Error('points columns differ in length or are empty');
      for (let i = 0; i < ts.length; i++) out.results.push(`{"type":"result","data":{"tags":${s.tagsJson},"value":${JSON.stringify(vs[i])},"timestamp":${JSON.stringify(ts[i])},"label":${s.labelJson}}}`);
    } else if (event.type === 'stream') {
      const id = d.id as number;
      if (streams.has(id)) throw new Error(`stream ${id} announced twice`);
      streams.set(id, d.tags as Record<string, string>);
    } else if (event.type === 'rows') {
      const ids = d.streams as number[];
      const ns = d.timestamps_ns as string[];
      const ms = d.timestamps as number[];
      const lines = d.lines as Array<string | null>;
      if (ids.length !== ns.length || ids.length !== ms.length || ids.length !== lines.length || ids.length === 0) throw new Error('rows columns differ in length or are empty');
      for (let i = 0; i < ids.length; i++) {
        const tags = streams.get(ids[i]);
        if (tags === undefined) throw new Error(`row of unannounced stream ${ids[i]}`);
        const all: Record<string, string> = { ...tags };
        if (lines[i] !== null) all.message = lines[i]!;
        const members = Object.keys(all)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${JSON.stringify(all[k])}`)
          .join(',');
        if (BigInt(ms[i]) !== BigInt(ns[i]) / 1_000_000n) throw new Error(`row ${i}: timestamp ${ms[i]} is not timestamp_ns ${ns[i]} in ms`);
        out.results.push(`{"type":"result","data":{"timestamp":${ms[i]},"timestamp_ns":${ns[i]},"tags":{${members}}}}`);
      }
    } else if (event.type === 'result') {
      // Summaries are the same events in both formats.
      out.results.push(line);
    } else if (event.type !== 'heartbeat') {
      out.others.push(line);
    }
  }
  return out;
}

/**
 * timesOf reads a points event's `count` times: its `timestamps` column, or (float64 columns
 * over a regular grid) `start` and `step`, which then must be the only times given.
 */
export function timesOf(d: Record<string, unknown>, count: number): number[] {
  if (d.timestamps !== undefined) {
    if (d.start !== undefined || d.step !== undefined) throw new Error('points event with both timestamps and start/step');
    return numberColumn(d.timestamps as number[] | string);
  }
  const { start, step } = d as { start: number; step: number };
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(step) || step <= 0 || count < 2) throw new Error(`points event without timestamps and with start ${start}, step ${step}, ${count} points`);
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/**
 * numberColumn reads a points event's column: JSON numbers, or (`columns: "float64"`) base64 of
 * little-endian doubles, which must be whole doubles.
 */
export function numberColumn(column: number[] | string): number[] {
  if (typeof column !== 'string') return column;
  const bytes = Buffer.from(column, 'base64');
  if (bytes.length % 8 !== 0 || bytes.toString('base64') !== column) throw new Error(`not base64 of doubles: ${column.slice(0, 40)}`);
  return Array.from(new Float64Array(new Uint8Array(bytes).buffer));
}
