import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { narrowHeadExport, type HeadScope } from '../../engine/storage/headFilter.js';
import { encodeHeadExport, encodedLength } from '../../engine/storage/headWire.js';
import type { LabelMatcher } from '../../engine/storage/matchers.js';
import { Storage } from '../../engine/storage/storage.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * What a query process's head fetch moves for dashboard windows of different widths, as a
 * share of the bytes the same selectors move with no time range: 200 series scraped every 15 s
 * over 2 h (SVC_HEAD_MAX_AGE_MS, the most a head holds), one metric name selected. Bytes are
 * the head wire format's, as the internal endpoint sends them; they do not depend on the
 * machine, so this measures the filter's policy (a chunk mostly inside the range goes whole),
 * not its speed.
 *
 * `node dist/bench/storage/headRange.bench.js`
 */
const SERIES = 200;
const SAMPLES = 480;
const SCRAPE_MS = 15_000;
const BASE_MS = 1_700_000_000_000;
/** LOOKBACK_MS is what the planner adds before a window for instant selectors. */
const LOOKBACK_MS = 5 * 60_000;

export async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-head-range-'));
  const storage = await Storage.open({ dir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
  try {
    await storage.appendMetrics(
      'org',
      Array.from({ length: SERIES }, (_, n) => {
        const ts = Float64Array.from({ length: SAMPLES }, (_, i) => BASE_MS + i * SCRAPE_MS);
        return { labels: { __name__: 'http_requests_total', pod: `p${n}` }, timestampsMs: ts, values: ts.map((_, i) => i) };
      }),
    );
    const whole = storage.exportHeads('org', { metrics: true, logs: false });
    const selectors: LabelMatcher[][] = [[{ name: '__name__', type: '=', value: 'http_requests_total' }]];
    const endMs = BASE_MS + (SAMPLES - 1) * SCRAPE_MS;
    const bytes = (scope: HeadScope) => encodedLength(encodeHeadExport(narrowHeadExport(whole, scope, () => false), 'h:'));
    const unbounded = bytes({ selectors });
    for (const minutes of [5, 15, 30, 60]) {
      const share = bytes({ selectors, minMs: endMs - minutes * 60_000 - LOOKBACK_MS, maxMs: endMs }) / unbounded;
      console.log(`last ${minutes} min (+5 min lookback): ${share.toFixed(3)} of the bytes without a range`);
    }
  } finally {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
