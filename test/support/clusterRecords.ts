import { expect } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import type { ChildServer } from './child.js';
import { waitFor } from './server.js';
import { query, readSse, type SseResponse } from './sse.js';

/**
 * Numbered records for the cluster tests: record `id` is one series of 5 samples (metric
 * `fc_samples`, label req=id) and two log lines (`id=<id>-a`, `id=<id>-b`), so counting them
 * on a query process shows whether every acknowledged record is there exactly once.
 */
export class ClusterRecords {
  /** base is the first sample's time: every write is placed from it, identically on every installation. */
  readonly base = Math.floor(Date.now() / 1000) * 1000 - 1_200_000;

  /** lastOutcome says how the last counting query ended (HTTP status, `done` event), for failure messages. */
  lastOutcome = '';

  constructor(private readonly apiKey: string) {}

  /** write sends record `id` to `server` at times derived from `i`; true when both parts were acknowledged. */
  async write(server: ChildServer, id: string, i: number, signal?: AbortSignal): Promise<boolean> {
    // Series differ by id, so times may repeat: they stay in the past however long the writes go on.
    const t = this.base + (i % 1000) * 1000;
    const samples = Array.from({ length: 5 }, (_, k) => ({ value: i + k, timestamp: t + k * 100 }));
    const rw = await fetch(`${server.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'fc_samples' }, { name: 'req', value: id }, { name: 'shard', value: String(i % 3) }], samples }] }),
      headers: { 'x-svc-api-key': this.apiKey, 'content-type': 'application/x-protobuf' },
      signal,
    });
    await rw.arrayBuffer();
    const ns = BigInt(t) * 1_000_000n;
    const lp = await fetch(`${server.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: `fc${i % 3}` }, values: [[String(ns), `id=${id}-a level=info`], [String(ns + 1n), `id=${id}-b level=warn`]] }] }),
      headers: { 'x-svc-api-key': this.apiKey, 'content-type': 'application/json' },
      signal,
    });
    await lp.arrayBuffer();
    return rw.status === 204 && lp.status === 204;
  }

  /** sampleCounts counts each record's samples on `server`. */
  async sampleCounts(server: ChildServer): Promise<Map<string, number>> {
    const at = String(this.base + 3_600_000);
    const res = await readSse(await query(server.url, '/api/v1/metrics/query', this.apiKey, { q: 'count_over_time(fc_samples[2h])', s: at, e: at }));
    this.lastOutcome = outcomeOf(res);
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) counts.set((e.data.tags as Record<string, string>).req, e.data.value as number);
    return counts;
  }

  /** lineCounts counts each log line (`<id>-a`, `<id>-b`) on `server`. */
  async lineCounts(server: ChildServer): Promise<Map<string, number>> {
    const res = await readSse(await query(server.url, '/api/v1/logs/query', this.apiKey, { q: '{service_name=~"fc.*"}', s: String(this.base - 1000), e: String(this.base + 3_600_000), limit: 100_000 }));
    this.lastOutcome = outcomeOf(res);
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) {
      const id = /id=(\S+)/.exec(String((e.data.tags as Record<string, string>).message))?.[1] ?? '?';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  /**
   * expectEachOnce waits up to `timeoutMs` for every record of `ids` to be counted exactly once
   * on `server` (samples and lines), then asserts it, naming what is missing or repeated and how
   * the last query ended (a partial answer while a holder is unreachable is retried until then).
   */
  async expectEachOnce(server: ChildServer, ids: string[], timeoutMs: number): Promise<void> {
    const wantLines = ids.flatMap((id) => [`${id}-a`, `${id}-b`]);
    let samples = new Map<string, number>();
    let samplesOutcome = '';
    let lines = new Map<string, number>();
    await waitFor(async () => {
      samples = await this.sampleCounts(server);
      samplesOutcome = this.lastOutcome;
      if (!ids.every((id) => samples.get(id) === 5)) return false;
      lines = await this.lineCounts(server);
      return wantLines.every((id) => lines.get(id) === 1);
    }, timeoutMs).catch(() => undefined); // the assertions below name what is missing
    expect(ids.filter((id) => samples.get(id) !== 5), `samples missing on ${server.url} (${samplesOutcome})`).toEqual([]);
    expect([...samples].filter(([, c]) => c !== 5), `samples repeated on ${server.url}`).toEqual([]);
    expect(wantLines.filter((id) => lines.get(id) !== 1), `lines missing on ${server.url} (${this.lastOutcome})`).toEqual([]);
    expect([...lines].filter(([, c]) => c !== 1), `lines repeated on ${server.url}`).toEqual([]);
  }
}

/** outcomeOf sums up how a query ended: its HTTP status and its `done` event or error body. */
function outcomeOf(res: SseResponse): string {
  const done = res.events.find((e) => e.type === 'done')?.data;
  return `${res.status} ${JSON.stringify(done ?? res.body ?? 'no done event')}`;
}
