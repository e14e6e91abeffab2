import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerHeapBoard } from '../../src/query/workerHeaps.js';
import { writeRisingCounters } from '../support/risingCounters.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/** workerFigures reads one per-worker gauge from /metrics: value by worker label. */
async function workerFigures(url: string, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const figures = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}\\{worker="(\\d+)"\\} (\\S+)$`, 'gm'))) figures.set(m[1], Number(m[2]));
  return figures;
}

describe("query workers' heaps in /metrics", () => {
  let srv: TestServer;
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;

  beforeAll(async () => {
    // Its 100 series' hour is small enough to be evaluated on the answering thread: off, so the workers run it.
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_QUERY_INLINE_MAX_SAMPLES: '0' });
    await writeRisingCounters(srv, endMs, 100);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('reports each worker that ran a task, by its position in the pool, with a heap that holds what it uses', async () => {
    // Several queries at once, so both workers get tasks.
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () => readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'rate(requests_total[5m])', s: String(endMs - 3_600_000), e: String(endMs), step: 15 }))),
    );
    for (const answer of answers) expect(answer.events.filter((e) => e.type === 'result').length).toBeGreaterThan(1000);
    const used = await workerFigures(srv.url, 'sluice_query_worker_heap_used_bytes');
    const size = await workerFigures(srv.url, 'sluice_query_worker_heap_size_bytes');
    const external = await workerFigures(srv.url, 'sluice_query_worker_external_bytes');
    expect(used.size).toBeGreaterThan(0);
    for (const [worker, bytes] of used) {
      expect(['0', '1']).toContain(worker);
      // A worker has the engine loaded: its heap is megabytes, and V8 holds at least what is in use.
      expect(bytes).toBeGreaterThan(1 << 20);
      expect(size.get(worker)).toBeGreaterThanOrEqual(bytes);
      expect(external.get(worker)).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('the heap board workers post to', () => {
  it('keeps a slot per thread and hands the slot of a thread no longer running to the next', () => {
    const board = new WorkerHeapBoard();
    // Each worker holds its own view of the shared slots; here all post from this thread's heap.
    const first = new WorkerHeapBoard(board.buffer);
    const second = new WorkerHeapBoard(board.buffer);
    first.post(7);
    second.post(9);
    const [seven, nineFirst, absent] = board.read([7, 9, 11]);
    expect(absent).toBeUndefined();
    for (const heap of [seven, nineFirst]) {
      expect(heap!.usedBytes).toBeGreaterThan(0);
      expect(heap!.totalBytes).toBeGreaterThanOrEqual(heap!.usedBytes);
      expect(heap!.totalBytes).toBeLessThanOrEqual(v8.getHeapStatistics().total_heap_size * 2);
    }
    // Thread 7 was replaced by thread 11: reading without 7 frees its slot, which 11 then takes.
    expect(board.read([9])[0]).toBeDefined();
    const slots = 64;
    const fillers = Array.from({ length: slots - 1 }, (_, i) => 100 + i);
    for (const id of [11, ...fillers.slice(1)]) new WorkerHeapBoard(board.buffer).post(id);
    const read = board.read([9, 11, ...fillers.slice(1)]);
    expect(read.every((heap) => heap !== undefined)).toBe(true);
    // Every slot is taken now: one more thread is not followed, and nothing else is disturbed.
    new WorkerHeapBoard(board.buffer).post(500);
    const [unfollowed, nine] = board.read([500, 9]);
    expect(unfollowed).toBeUndefined();
    expect(nine).toEqual(read[0]);
  });
});
