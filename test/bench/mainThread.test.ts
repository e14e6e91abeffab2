import { describe, expect, it } from 'vitest';
import { mainThreadBreakdown, selfTimes, type TraceEvent } from '../../bench/web/mainThread.js';

/** X builds a complete trace event on thread 1 of process 1; times in microseconds as in traces. */
const X = (name: string, ts: number, dur: number, tid = 1): TraceEvent => ({ name, ph: 'X', ts, dur, pid: 1, tid });

describe('main thread breakdown of a Chromium trace', () => {
  it('gives nested events their self time and their parents the rest', () => {
    // A task of 10 ms running a function call of 6 ms, inside which 2 ms of layout.
    const { buckets, busy } = selfTimes([X('RunTask', 0, 10_000), X('FunctionCall', 1_000, 6_000), X('Layout', 2_000, 2_000)]);
    expect(buckets).toEqual({ other: 4, script: 4, 'style and layout': 2 });
    expect(busy).toBe(10);
  });

  it('never goes negative when a child outlives its parent, and the parts add up to the busy time', () => {
    // Paint starts inside a 1 ms function call and ends 3 ms after it; subtracting its whole
    // duration from the call gave the call -2 ms.
    const events = [X('RunTask', 0, 5_000), X('FunctionCall', 0, 1_000), X('Paint', 500, 3_500), X('MinorGC', 4_000, 2_000), X('RunTask', 10_000, 1_000)];
    const { buckets, busy } = selfTimes(events);
    for (const ms of Object.values(buckets)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(buckets).toEqual({ script: 0.5, paint: 3.5, gc: 2, other: 1 });
    // Busy is the union of the events' spans: 0 to 6 ms and 10 to 11 ms.
    expect(busy).toBe(7);
    expect(Object.values(buckets).reduce((a, b) => a + b, 0)).toBeCloseTo(busy, 9);
  });

  it('takes each renderer main thread on its own and leaves other threads out', () => {
    const meta = (tid: number, name: string): TraceEvent => ({ name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid, args: { name } });
    // Two renderer main threads whose events overlap in time, and a compositor thread.
    const traceEvents = [meta(1, 'CrRendererMain'), meta(2, 'CrRendererMain'), meta(3, 'Compositor'), X('FunctionCall', 0, 4_000, 1), X('Paint', 1_000, 4_000, 2), X('Layout', 0, 9_000, 3)];
    const { buckets, busy } = mainThreadBreakdown(Buffer.from(JSON.stringify({ traceEvents })));
    expect(buckets).toEqual({ script: 4, paint: 4 });
    expect(busy).toBe(8);
  });
});
