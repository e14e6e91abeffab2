/**
 * whileServing's signal aborts when the client leaves or the server stops, and leaves nothing
 * on the server's long-lived shutdown signal once the work is over (AbortSignal.any left an
 * entry there for every request).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/http/router.js';
import { whileServing } from '../../src/http/servingSignal.js';

/** requestOn is the part of a request whileServing reads: the client's abort hook and the server's shutdown. */
function requestOn(shutdown: AbortSignal): { ctx: RequestContext; leave: () => void } {
  const onAbort: Array<() => void> = [];
  const ctx = { res: { onAbort: (handler: () => void) => onAbort.push(handler) }, shutdown } as unknown as RequestContext;
  return { ctx, leave: () => onAbort.forEach((handler) => handler()) };
}

describe('whileServing', () => {
  it('aborts with the given reason when the client leaves', async () => {
    const server = new AbortController();
    const { ctx, leave } = requestOn(server.signal);
    const reason = await whileServing(ctx, () => new Error('client left'), (signal) => {
      leave();
      return Promise.resolve(signal.reason as Error);
    });
    expect(reason.message).toBe('client left');
  });

  it('aborts with the shutdown reason when the server stops, or at once when it has', async () => {
    const server = new AbortController();
    const stop = new Error('stopping');
    const during = await whileServing(requestOn(server.signal).ctx, () => new Error('client left'), (signal) => {
      server.abort(stop);
      return Promise.resolve(signal.reason);
    });
    expect(during).toBe(stop);
    const after = await whileServing(requestOn(server.signal).ctx, () => new Error('client left'), (signal) => Promise.resolve(signal.aborted && signal.reason));
    expect(after).toBe(stop);
  });

  it('leaves no listener on the shutdown signal once the work ends, however it ends', async () => {
    const server = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const { ctx } = requestOn(server.signal);
      await whileServing(ctx, () => new Error('client left'), () => (i % 2 === 0 ? Promise.resolve(i) : Promise.reject(new Error('failed')))).catch(() => undefined);
    }
    expect(getEventListeners(server.signal, 'abort')).toHaveLength(0);
  });
});
