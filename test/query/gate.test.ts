import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { OrgGate, type GateLimit } from '../../src/query/stream.js';
import { WorkerAdmission, type WorkerLoad } from '../../src/query/workerAdmission.js';
import { holdingSlot } from '../../src/query/queryDeps.js';

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
    const a = await gate.acquire('org-1', two);
    await gate.acquire('org-1', two);
    await expect(gate.acquire('org-1', two)).rejects.toThrow(ApiError);
    await expect(gate.acquire('org-2', two)).resolves.toBeTypeOf('function');
    a();
    a();
    await expect(gate.acquire('org-1', two)).resolves.toBeTypeOf('function');
    await expect(gate.acquire('org-1', two)).rejects.toThrow(/too many concurrent queries for this org \(limit 2: SVC_MAX_QUERIES_PER_ORG; 0 waiting, limit 0/);
  });

  it('applies the limit each acquire is given, so a changed org limit holds from the next query', async () => {
    const gate = new OrgGate();
    await gate.acquire('org-1', limitOf(1));
    await expect(gate.acquire('org-1', limitOf(1))).rejects.toThrow(/limit 1/);
    const raised = limitOf(3, 0, 60_000, "this org's maxConcurrentQueries");
    await gate.acquire('org-1', raised);
    await gate.acquire('org-1', raised);
    await expect(gate.acquire('org-1', raised)).rejects.toThrow(/limit 3: this org's maxConcurrentQueries/);
  });

  it('queues queries over the limit first come first served, handing each freed slot to the next', async () => {
    const gate = new OrgGate();
    const limit = limitOf(1, 2);
    const first = await gate.acquire('org-1', limit);
    const second = gate.acquire('org-1', limit);
    const third = gate.acquire('org-1', limit);
    expect(gate.queued('org-1')).toBe(2);
    await expect(gate.acquire('org-1', limit)).rejects.toThrow(/2 waiting, limit 2: SVC_MAX_QUEUED_QUERIES_PER_ORG/);
    // Another org is not behind this one's queue.
    await expect(gate.acquire('org-2', limit)).resolves.toBeTypeOf('function');
    expect(await settled(second)).toBe(false);
    first();
    const releaseSecond = await second;
    expect(await settled(third)).toBe(false);
    // A newcomer does not overtake the queue while it is not empty.
    const late = gate.acquire('org-1', limit);
    releaseSecond();
    const releaseThird = await third;
    expect(await settled(late)).toBe(false);
    releaseThird();
    (await late)();
    expect(gate.queued('org-1')).toBe(0);
    await expect(gate.acquire('org-1', limit)).resolves.toBeTypeOf('function');
  });

  it('takes a query out of the queue when its client leaves, and refuses one that waited its deadline', async () => {
    const gate = new OrgGate();
    const limit = limitOf(1, 5, 50);
    const held = await gate.acquire('org-1', limit);
    const leaving = new AbortController();
    const gone = gate.acquire('org-1', limit, leaving.signal);
    leaving.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(gate.queued('org-1')).toBe(0);
    await expect(gate.acquire('org-1', limit)).rejects.toThrow(/waited 50 ms for one of this org's 1 concurrent query slots/);
    expect(gate.queued('org-1')).toBe(0);
    held();
    await expect(gate.acquire('org-1', limit)).resolves.toBeTypeOf('function');
  });

  it('holds queries back while the workers are saturated and lets them in, in order, as tasks end', async () => {
    const load = new Backlog();
    const gate = new OrgGate(new WorkerAdmission(load, { maxWaiting: 10, maxEvaluating: Infinity }));
    load.queued = 5;
    const first = gate.acquire('org-1', limitOf(10));
    const second = gate.acquire('org-2', limitOf(10));
    expect(await settled(first)).toBe(false);
    load.settle(); // still saturated: nobody is let in
    expect(await settled(first)).toBe(false);
    load.queued = 1;
    load.settle();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    // A query that ends lets the next one in too, as long as the pool has room.
    (await first)();
    expect(await settled(second)).toBe(true);
  });

  it('answers 429 with Retry-After only when the workers\' queue is full or the wait passes the deadline, freeing the org slot', async () => {
    const load = new Backlog();
    const admission = new WorkerAdmission(load, { maxWaiting: 1, maxEvaluating: Infinity });
    const gate = new OrgGate(admission);
    load.queued = 5;
    const waiting = gate.acquire('org-1', limitOf(1, 5));
    const full = await gate.acquire('org-2', limitOf(1)).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(ApiError);
    expect((full as ApiError).code).toBe('RATE_LIMITED');
    expect((full as ApiError).headers['retry-after']).toBe('2');
    const late = await gate.acquire('org-2', limitOf(1, 0, 30)).catch((e: unknown) => e);
    expect((late as ApiError).code).toBe('RATE_LIMITED');
    load.queued = 0;
    load.settle();
    (await waiting)();
    // The slot of the query refused while waiting was freed: org-2 runs again.
    load.queued = 0;
    await expect(gate.acquire('org-2', limitOf(1))).resolves.toBeTypeOf('function');
  });

  it('takes a query whose client leaves out of the workers\' queue', async () => {
    const load = new Backlog();
    const admission = new WorkerAdmission(load, { maxWaiting: 10, maxEvaluating: Infinity });
    const gate = new OrgGate(admission);
    load.queued = 5;
    const leaving = new AbortController();
    const gone = gate.acquire('org-1', limitOf(1), leaving.signal);
    expect(admission.waiting).toBe(1);
    leaving.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(admission.waiting).toBe(0);
    load.queued = 0;
    await expect(gate.acquire('org-1', limitOf(1))).resolves.toBeTypeOf('function');
  });
});

describe('holdingSlot', () => {
  it('frees the org slot and the evaluation slot when building the query throws after taking them', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 0, maxEvaluating: 1 });
    const gate = new OrgGate(admission);
    const slot = await gate.acquire('org-1', limitOf(1));
    expect(admission.evaluating).toBe(1);
    expect(() =>
      holdingSlot(slot, () => {
        throw new ApiError('SERVICE_UNAVAILABLE', 'no plan for this query');
      }),
    ).toThrow('no plan for this query');
    expect(admission.evaluating).toBe(0);
    // With one org slot, no queue and one evaluation slot, only freed slots let the next query in.
    const next = await gate.acquire('org-1', limitOf(1));
    expect(holdingSlot(next, () => 'built')).toBe('built');
    expect(admission.evaluating).toBe(1);
    next();
    expect(admission.evaluating).toBe(0);
  });
});

describe('WorkerAdmission evaluation cap', () => {
  it('lets at most maxEvaluating queries evaluate and the next in, in order, as each finishes evaluating', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 10, maxEvaluating: 2 });
    const a = await admission.admit('org-1', 1000);
    const b = await admission.admit('org-1', 1000);
    expect(admission.evaluating).toBe(2);
    const c = admission.admit('org-1', 1000);
    const d = admission.admit('org-1', 1000);
    expect(await settled(c)).toBe(false);
    expect(admission.waiting).toBe(2);
    a.done();
    a.done(); // once only
    expect(await settled(c)).toBe(true);
    expect(await settled(d)).toBe(false);
    expect(admission.evaluating).toBe(2);
    b.done();
    expect(await settled(d)).toBe(true);
    (await c).done();
    (await d).done();
    expect(admission.evaluating).toBe(0);
  });

  it('refuses past the queue with 429 naming the cap, and a wait past the deadline', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 1, maxEvaluating: 1 });
    const held = await admission.admit('org-1', 1000);
    const waiting = admission.admit('org-1', 1000);
    const full = (await admission.admit('org-1', 1000).catch((e: unknown) => e)) as ApiError;
    expect(full.code).toBe('RATE_LIMITED');
    expect(full.headers['retry-after']).toBe('2');
    expect(full.message).toMatch(/all 1 evaluation slots are busy \(SVC_MAX_CONCURRENT_QUERIES\).*SVC_MAX_QUERIES_WAITING_FOR_WORKERS/);
    held.done();
    const late = await admission.admit('org-1', 20).catch((e: unknown) => e);
    expect((late as ApiError).message).toMatch(/waited 20 ms for a query evaluation slot/);
    (await waiting).done();
  });

  it('lends a paused query\'s slot to the next and gives it back before newer queries', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 10, maxEvaluating: 1 });
    const slow = await admission.admit('org-1', 1000);
    const next = admission.admit('org-1', 1000);
    const newer = admission.admit('org-1', 1000);
    slow.pause();
    expect(slow.paused).toBe(true);
    expect(await settled(next)).toBe(true);
    const resumed = slow.resume();
    expect(await settled(resumed)).toBe(false);
    (await next).done();
    // The paused query resumes ahead of the one that waited for admission.
    expect(await settled(resumed)).toBe(true);
    expect(slow.paused).toBe(false);
    expect(await settled(newer)).toBe(false);
    slow.done();
    expect(await settled(newer)).toBe(true);
    (await newer).done();
    expect(admission.evaluating).toBe(0);
  });

  it('gives a paused query\'s slot up entirely, and bounds paused queries per org, not across orgs', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 10, maxEvaluating: 1 });
    const slow = await admission.admit('org-a', 1000);
    slow.pause();
    const slower = await admission.admit('org-a', 1000);
    slower.pause(); // a second paused query of the same org frees its slot too
    expect([admission.evaluating, admission.lending]).toEqual([0, 2]);
    // org-a has as many paused queries as the cap: its new queries wait, another org's do not.
    const aWaits = admission.admit('org-a', 1000);
    expect(await settled(aWaits)).toBe(false);
    const b = await admission.admit('org-b', 1000);
    expect(admission.evaluating).toBe(1);
    b.done();
    expect(await settled(aWaits)).toBe(false);
    // One of org-a's paused queries ends: its new query gets the free slot.
    slower.done();
    expect(await settled(aWaits)).toBe(true);
    (await aWaits).done();
    await slow.resume();
    slow.done();
    expect([admission.evaluating, admission.lending, admission.waiting]).toEqual([0, 0, 0]);
  });

  it('hands a freed slot to the org with the fewest queries evaluating, resuming queries first within an org', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 10, maxEvaluating: 2 });
    const a1 = await admission.admit('org-a', 1000);
    const a2 = await admission.admit('org-a', 1000);
    const a3 = admission.admit('org-a', 1000);
    const b1 = admission.admit('org-b', 1000);
    a2.pause();
    // org-b evaluates nothing, org-a one query: org-b's later query goes first.
    expect(await settled(b1)).toBe(true);
    expect(await settled(a3)).toBe(false);
    const resumed = a2.resume();
    (await b1).done();
    // Both candidates are org-a's: the paused query resuming goes before the newer one.
    expect(await settled(resumed)).toBe(true);
    expect(await settled(a3)).toBe(false);
    a1.done();
    expect(await settled(a3)).toBe(true);
    a2.done();
    (await a3).done();
    expect([admission.evaluating, admission.lending, admission.waiting]).toEqual([0, 0, 0]);
  });

  it('frees nothing twice when a query ends paused or while waiting to resume', async () => {
    const admission = new WorkerAdmission(new Backlog(), { maxWaiting: 10, maxEvaluating: 1 });
    const first = await admission.admit('org-1', 1000);
    first.pause();
    const other = await admission.admit('org-1', 1000);
    const resuming = first.resume();
    first.done();
    await expect(resuming).rejects.toThrow('query ended');
    expect(admission.waiting).toBe(0);
    expect(admission.evaluating).toBe(1);
    other.done();
    expect(admission.evaluating).toBe(0);
    const gone = new AbortController();
    const third = await admission.admit('org-1', 1000);
    third.pause();
    const blocker = await admission.admit('org-1', 1000);
    const leaving = third.resume(gone.signal);
    gone.abort(new Error('client left'));
    await expect(leaving).rejects.toThrow('client left');
    third.done();
    blocker.done();
    expect(admission.evaluating).toBe(0);
    expect(admission.lending).toBe(0);
  });
});

/** Backlog is a pool's load as admission sees it: a count of waiting tasks, saturated from 2. */
class Backlog implements WorkerLoad {
  queued = 0;
  private readonly listeners: Array<() => void> = [];
  get overloaded(): boolean {
    return this.queued >= 2;
  }
  onTaskSettled(listener: () => void): void {
    this.listeners.push(listener);
  }
  settle(): void {
    for (const l of this.listeners) l();
  }
}
