import { describe, expect, it } from 'vitest';
import { SLICE_MS, yieldIfSliceSpent } from '../../src/http/timeSlice.js';

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('time slices on the main thread', () => {
  it('costs nothing while the slice has time left', async () => {
    // Wall-clock slices: on a loaded machine the process may be descheduled for a whole slice
    // between two calls, so the check gets a few fresh slices and needs one that had time left.
    let answer: Promise<void> | undefined = Promise.resolve();
    for (let attempt = 0; attempt < 5 && answer !== undefined; attempt++) {
      await new Promise((r) => setImmediate(r));
      await yieldIfSliceSpent(); // start from a fresh slice
      answer = yieldIfSliceSpent();
    }
    expect(answer).toBeUndefined();
  });

  it('lets I/O and timers run between slices of a loop that never awaits anything pending', async () => {
    // A loop like sendAll to a fast client: every await is on a settled promise.
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    let timerSeenAtIteration = -1;
    for (let i = 0; i < 20; i++) {
      busyFor(SLICE_MS / 2);
      await Promise.resolve();
      await yieldIfSliceSpent();
      if (timerRan && timerSeenAtIteration < 0) timerSeenAtIteration = i;
    }
    // Without yielding, the timer could only run after all 20 iterations (10 slices of work).
    expect(timerSeenAtIteration).toBeGreaterThanOrEqual(0);
    expect(timerSeenAtIteration).toBeLessThan(5);
  });

  it('resumes concurrent loops one per turn, so their slices never add up before the loop polls', async () => {
    const order: string[] = [];
    let probes = 0;
    const probe = setInterval(() => probes++, 0);
    const loop = async (name: string): Promise<void> => {
      for (let i = 0; i < 4; i++) {
        busyFor(SLICE_MS + 1);
        order.push(name);
        await yieldIfSliceSpent();
      }
    };
    await Promise.all([loop('a'), loop('b'), loop('c')]);
    clearInterval(probe);
    // Each loop spends its whole slice per iteration, so they alternate instead of running in bursts.
    expect(order.slice(3, 9)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    // A timer got turns between slices: about one per slice, not one at the end.
    expect(probes).toBeGreaterThanOrEqual(6);
  });
});
