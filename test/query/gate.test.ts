import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { OrgGate, type GateLimit } from '../../src/query/stream.js';

/** limitOf is a concurrency limit and queue as an org's settings give them, with where they come from. */
function limitOf(maxConcurrentQueries: number, maxQueuedQueries = 0, timeoutMs = 60_000, origin = 'SVC_MAX_QUERIES_PER_ORG'): GateLimit {
  return { maxConcurrentQueries, maxQueuedQueries, timeoutMs, originOf: (field) => (field === 'maxConcurrentQueries' ? origin : 'SVC_MAX_QUEUED_QUERIES_PER_ORG') };
}

/** settled tells whether a promise has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('OrgGate', () => {
  it('bounds concurrent queries per org and frees slots on release (once)', async () => {
    const gate = new OrgGate();
    const two = limitOf(2);
    const a = await gate.acquire('org-1', false, two);
    await gate.acquire('org-1', false, two);
    await expect(gate.acquire('org-1', false, two)).rejects.toThrow(ApiError);
    await expect(gate.acquire('org-2', false, two)).resolves.toBeTypeOf('function');
    a();
    a();
    await expect(gate.acquire('org-1', false, two)).resolves.toBeTypeOf('function');
    await expect(gate.acquire('org-1', false, two)).rejects.toThrow(/too many concurrent queries for this org \(limit 2: SVC_MAX_QUERIES_PER_ORG; 0 waiting, limit 0/);
  });

  it('applies the limit each acquire is given, so a changed org limit holds from the next query', async () => {
    const gate = new OrgGate();
    await gate.acquire('org-1', false, limitOf(1));
    await expect(gate.acquire('org-1', false, limitOf(1))).rejects.toThrow(/limit 1/);
    const raised = limitOf(3, 0, 60_000, "this org's maxConcurrentQueries");
    await gate.acquire('org-1', false, raised);
    await gate.acquire('org-1', false, raised);
    await expect(gate.acquire('org-1', false, raised)).rejects.toThrow(/limit 3: this org's maxConcurrentQueries/);
  });

  it('queues queries over the limit first come first served, handing each freed slot to the next', async () => {
    const gate = new OrgGate();
    const limit = limitOf(1, 2);
    const first = await gate.acquire('org-1', false, limit);
    const second = gate.acquire('org-1', false, limit);
    const third = gate.acquire('org-1', false, limit);
    expect(gate.queued('org-1')).toBe(2);
    await expect(gate.acquire('org-1', false, limit)).rejects.toThrow(/2 waiting, limit 2: SVC_MAX_QUEUED_QUERIES_PER_ORG/);
    // Another org is not behind this one's queue.
    await expect(gate.acquire('org-2', false, limit)).resolves.toBeTypeOf('function');
    expect(await settled(second)).toBe(false);
    first();
    const releaseSecond = await second;
    expect(await settled(third)).toBe(false);
    // A newcomer does not overtake the queue while it is not empty.
    const late = gate.acquire('org-1', false, limit);
    releaseSecond();
    const releaseThird = await third;
    expect(await settled(late)).toBe(false);
    releaseThird();
    (await late)();
    expect(gate.queued('org-1')).toBe(0);
    await expect(gate.acquire('org-1', false, limit)).resolves.toBeTypeOf('function');
  });

  it('takes a query out of the queue when its client leaves, and refuses one that waited its deadline', async () => {
    const gate = new OrgGate();
    const limit = limitOf(1, 5, 50);
    const held = await gate.acquire('org-1', false, limit);
    const leaving = new AbortController();
    const gone = gate.acquire('org-1', false, limit, leaving.signal);
    leaving.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(gate.queued('org-1')).toBe(0);
    await expect(gate.acquire('org-1', false, limit)).rejects.toThrow(/waited 50 ms for one of this org's 1 concurrent query slots/);
    expect(gate.queued('org-1')).toBe(0);
    held();
    await expect(gate.acquire('org-1', false, limit)).resolves.toBeTypeOf('function');
  });

  it('refuses every org with 429 and Retry-After while the workers are saturated', async () => {
    const gate = new OrgGate();
    const err = await gate.acquire('org-1', true, limitOf(10)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('RATE_LIMITED');
    expect((err as ApiError).headers['retry-after']).toBe('2');
  });
});
