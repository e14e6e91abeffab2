import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRisingCounters } from '../support/risingCounters.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/** ProfileNode is the part of a V8 sampling heap profile node the test reads. */
interface ProfileNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: ProfileNode[];
}

/** allocatedIn sums the sampled bytes of the profile's functions whose script path contains `part`. */
function allocatedIn(node: ProfileNode, part: string): number {
  let bytes = node.callFrame.url.includes(part) ? node.selfSize : 0;
  for (const child of node.children) bytes += allocatedIn(child, part);
  return bytes;
}

describe('worker allocation profile (SVC_WORKER_ALLOCATION_PROFILE_DIR)', () => {
  let srv: TestServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-allocations-'));
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_WORKER_ALLOCATION_PROFILE_DIR: dir });
    await writeRisingCounters(srv, endMs, 200);
  });
  afterAll(async () => {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes each worker's sampled allocations, evaluation's included, once it has run a task", async () => {
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'rate(requests_total[5m])', s: String(endMs - 3_600_000), e: String(endMs), step: 15 }));
    expect(res.status).toBe(200);
    expect(res.events.filter((e) => e.type === 'result').length).toBeGreaterThan(1000);
    await waitFor(() => readdirSync(dir).some((f) => f.endsWith('.heapprofile')), 5000);
    const files = readdirSync(dir).filter((f) => /^worker-\d+\.heapprofile$/.test(f));
    expect(files).toHaveLength(1);
    const profile = JSON.parse(readFileSync(path.join(dir, files[0]), 'utf8')) as { head: ProfileNode; samples: unknown[] };
    expect(profile.samples.length).toBeGreaterThan(0);
    // The rate's outputs and the answer's packing are allocated by the engine's evaluation code.
    expect(allocatedIn(profile.head, '/engine/')).toBeGreaterThan(0);
    expect(existsSync(path.join(dir, `${files[0]}.tmp`))).toBe(false);
  });
});
