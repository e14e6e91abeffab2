/**
 * runOrderedQueue runs units of work with up to `concurrency` in flight and hands their
 * results to `consume` strictly in queue order, like runOrdered, except that consuming a unit
 * may put a follow-up unit at the front of the queue (the rest of a raw-log slice that was
 * answered in parts). A unit starts only after `consume` of an earlier one returned, so a slow
 * client still pauses its own dispatch. `consume` returns false to stop early.
 */
export async function runOrderedQueue<W, R>(
  initial: readonly W[],
  concurrency: number,
  start: (unit: W, signal: AbortSignal) => Promise<R>,
  consume: (unit: W, result: R) => Promise<{ more: boolean; next?: W }>,
  signal: AbortSignal,
): Promise<void> {
  const queue: Array<{ unit: W; result?: Promise<R> }> = initial.map((unit) => ({ unit }));
  let running = 0;
  const launch = (): void => {
    for (const entry of queue) {
      if (running >= concurrency || signal.aborted) return;
      if (entry.result) continue;
      entry.result = start(entry.unit, signal);
      entry.result.catch(() => {});
      running++;
    }
  };
  launch();
  while (queue.length > 0) {
    if (signal.aborted) throw signal.reason;
    const head = queue[0];
    if (!head.result) launch();
    const result = await head.result!;
    queue.shift();
    running--;
    const { more, next } = await consume(head.unit, result);
    if (!more) return;
    if (next !== undefined) queue.unshift({ unit: next });
    launch();
  }
}
