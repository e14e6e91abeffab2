/**
 * Where a Chromium trace says the renderer's main thread spent its time, by kind of work.
 *
 * Trace events of one thread are meant to nest, but they do not always: an event may end a
 * little after the event it started in (timestamps are rounded to microseconds, and some
 * events are closed after their parent task's bookkeeping). Subtracting each child's whole
 * duration from its parent then gave parents negative self time. Instead every moment of the
 * thread is given to exactly one event, the innermost one open at that moment, so no self time
 * is negative and the parts add up to the time the thread was busy.
 */

/** TraceEvent is the part of a Chromium trace event the breakdown reads. */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/**
 * BUCKETS name where the renderer's main thread spends its time, by trace event: the app's
 * script (including the charts drawing from it), parsing and compiling script, garbage
 * collection, style and layout, painting, and the HTML parser. An event no bucket names takes
 * the bucket of the event it runs in, or `other` (task and frame bookkeeping) at the top.
 */
export const BUCKETS: Array<[string, RegExp]> = [
  ['compile script', /^(v8\.compile|v8\.parseOnBackground|CompileScript|CompileCode|v8\.compileModule|EvaluateScript)$/],
  ['gc', /GC|^BlinkGC|^ThreadState::|^MajorGC|^MinorGC/],
  ['style and layout', /^(Layout|UpdateLayoutTree|RecalculateStyles|UpdateLayerTree|HitTest|ScheduleStyleRecalculation|InvalidateLayout|Layerize|PrePaint)$/],
  ['paint', /^(Paint|PaintImage|Rasterize|RasterTask|Decode.*|CompositeLayers|Commit)$/],
  ['parse HTML', /^ParseHTML$/],
  ['script', /^(FunctionCall|TimerFire|FireAnimationFrame|EventDispatch|v8\.run|v8\.callFunction|V8\.Execute|RunMicrotasks|XHRReadyStateChange|ResourceReceivedData|ResourceFinish|ProfileCall)$/],
];

/** Breakdown is self time in milliseconds per bucket, and `busy`: the time any event was open. */
export interface Breakdown {
  buckets: Record<string, number>;
  busy: number;
}

/**
 * selfTimes gives each moment covered by the complete (`X`) events to the innermost event open
 * then, summed by bucket. Events are taken in start order (the longer first of two starting
 * together, as it holds the other); an event that outlives the one it started in keeps the
 * moments after that one's end.
 */
export function selfTimes(events: TraceEvent[], buckets: Array<[string, RegExp]> = BUCKETS): Breakdown {
  const complete = events.filter((e) => e.ph === 'X' && e.dur !== undefined && e.dur >= 0).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const out: Record<string, number> = {};
  let busy = 0;
  const open: Array<{ end: number; bucket: string }> = [];
  let cursor = -Infinity;
  /** creditTo gives the moments from cursor up to `t` to the innermost open event, closing those that end on the way. */
  const creditTo = (t: number): void => {
    while (open.length > 0) {
      const top = open[open.length - 1]!;
      const until = Math.min(t, top.end);
      if (until > cursor) {
        out[top.bucket] = (out[top.bucket] ?? 0) + (until - cursor) / 1000;
        busy += (until - cursor) / 1000;
        cursor = until;
      }
      if (top.end > t) break;
      open.pop();
    }
    cursor = Math.max(cursor, t);
  };
  for (const e of complete) {
    creditTo(e.ts);
    const parent = open[open.length - 1];
    const bucket = buckets.find(([, pattern]) => pattern.test(e.name))?.[0] ?? parent?.bucket ?? 'other';
    open.push({ end: e.ts + e.dur!, bucket });
  }
  creditTo(Infinity);
  return { buckets: out, busy };
}

/**
 * mainThreadBreakdown reads a trace file's events and breaks down its renderer main threads
 * (CrRendererMain), each thread on its own: events of two threads do not nest in each other.
 */
export function mainThreadBreakdown(trace: Buffer): Breakdown {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key)) continue;
    const list = byThread.get(key);
    if (list) list.push(e);
    else byThread.set(key, [e]);
  }
  const total: Breakdown = { buckets: {}, busy: 0 };
  for (const threadEvents of byThread.values()) {
    const one = selfTimes(threadEvents);
    for (const [bucket, ms] of Object.entries(one.buckets)) total.buckets[bucket] = (total.buckets[bucket] ?? 0) + ms;
    total.busy += one.busy;
  }
  return total;
}
