/**
 * Cooperative time slicing for work done on the main thread. Everything the front does for a
 * query (rendering events, handing them to uWS) runs between the same event-loop turns as the
 * probes, ingest and every other request. A loop that awaits only already-settled promises never
 * gives the loop a turn: sixteen fast-reading streams then keep the thread for seconds. Long
 * loops call `yieldIfSliceSpent()` at convenient points; once the current turn has used
 * SLICE_MS, the caller queues for a later turn.
 *
 * Waiters resume one per event-loop turn, in arrival order: setImmediate runs after the poll
 * phase, so pending sockets (a probe, an ingest batch) are served between any two slices, and
 * sixteen busy streams take turns instead of each claiming a fresh slice in the same check
 * phase (which would add their slices up before the loop polls again).
 */

/** SLICE_MS is how long main-thread query work may run before other requests get a turn. */
export const SLICE_MS = 8;

let sliceStartedAt = performance.now();
const waiting: Array<() => void> = [];
let turnScheduled = false;

function resumeNext(): void {
  turnScheduled = false;
  sliceStartedAt = performance.now();
  const next = waiting.shift();
  if (waiting.length > 0) scheduleTurn();
  next?.();
}

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(resumeNext);
}

/**
 * yieldIfSliceSpent returns undefined while the current slice has time left (no promise, no
 * allocation on the hot path), and otherwise a promise for a later event-loop turn. A slice
 * that began in some other callback counts as spent once its time is up, so the worst case is
 * one early yield, never a missed one.
 */
export function yieldIfSliceSpent(): Promise<void> | undefined {
  if (performance.now() - sliceStartedAt < SLICE_MS) return undefined;
  return new Promise((resolve) => {
    waiting.push(resolve);
    scheduleTurn();
  });
}
