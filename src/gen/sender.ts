import { encodeExportLogsServiceRequest, encodeRemoteWriteBody } from '../../engine/index.js';
import { Generator, SCRAPE_INTERVAL_MS, type Batch } from './generator.js';

/**
 * Sender writes generated batches through the public ingest endpoints, exactly as a
 * collector would: metrics by Prometheus remote write, logs by OTLP/HTTP protobuf.
 */
export class Sender {
  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  private async post(path: string, body: Uint8Array, contentType: string): Promise<void> {
    const res = await fetch(`${this.url}${path}`, { method: 'POST', body, headers: { 'x-svc-api-key': this.key, 'content-type': contentType } });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }

  async send(batch: Batch): Promise<void> {
    await this.post('/api/v1/write', encodeRemoteWriteBody(batch.metrics), 'application/x-protobuf');
    if (batch.logLines > 0) await this.post('/v1/logs', encodeExportLogsServiceRequest(batch.logs), 'application/x-protobuf');
  }
}

export interface RunStats {
  samples: number;
  logLines: number;
}

/** BackfillProgress is where a backfill stands: scrapes written out of the total, and what they held. */
export interface BackfillProgress extends RunStats {
  done: number;
  total: number;
}

export interface BackfillOptions {
  /** signal stops the backfill between scrapes (a server shutting down, Ctrl-C). */
  signal?: AbortSignal;
  /** onProgress is called after each scrape is written. */
  onProgress?: (progress: BackfillProgress) => void;
}

/** backfill writes every scrape from `fromMs` to `toMs` (aligned to the scrape interval). */
export async function backfill(gen: Generator, sender: Sender, fromMs: number, toMs: number, options: BackfillOptions = {}): Promise<RunStats> {
  const stats: RunStats = { samples: 0, logLines: 0 };
  const first = Math.ceil(fromMs / SCRAPE_INTERVAL_MS) * SCRAPE_INTERVAL_MS;
  const total = first > toMs ? 0 : Math.floor((toMs - first) / SCRAPE_INTERVAL_MS) + 1;
  let done = 0;
  for (let t = first; t <= toMs && !options.signal?.aborted; t += SCRAPE_INTERVAL_MS) {
    const batch = gen.scrape(t);
    await sender.send(batch);
    stats.samples += batch.samples;
    stats.logLines += batch.logLines;
    done++;
    options.onProgress?.({ ...stats, done, total });
  }
  return stats;
}

/** live keeps scraping at wall-clock pace until `signal` aborts; returns what it sent. */
export async function live(gen: Generator, sender: Sender, signal: AbortSignal, onError: (err: unknown) => void): Promise<RunStats> {
  const stats: RunStats = { samples: 0, logLines: 0 };
  let next = Math.ceil(Date.now() / SCRAPE_INTERVAL_MS) * SCRAPE_INTERVAL_MS;
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, next - Date.now()));
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    if (signal.aborted) break;
    try {
      const batch = gen.scrape(next);
      await sender.send(batch);
      stats.samples += batch.samples;
      stats.logLines += batch.logLines;
    } catch (err) {
      onError(err);
    }
    next += SCRAPE_INTERVAL_MS;
  }
  return stats;
}
