import { encodeLokiPushBody, encodeRemoteWriteBody } from '../../engine/index.js';
import type { TimeSeriesInput } from '../../engine/index.js';
import type { LokiStreamInput } from '../../engine/ingest/index.js';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Dataset } from './dataset.js';
import type { RunningSystem } from './peers.js';

/**
 * Loads the dataset into Sluice through its public ingest endpoints, as collectors would:
 * metrics by remote write (snappy protobuf), logs by Loki push (snappy protobuf). The
 * elapsed times are the ingest suite's Sluice figures, so encoding happens before the clock
 * starts for each request batch and only the HTTP exchange is timed.
 */
const STEPS_PER_REQUEST = 20;
const LINES_PER_PUSH = 5_000;

export interface IngestFigures {
  items: number;
  seconds: number;
  perSecond: number;
}

async function post(sys: RunningSystem, path: string, body: Uint8Array, contentType: string): Promise<void> {
  const res = await fetch(`${sys.url}${path}`, { method: 'POST', body, headers: { 'x-svc-api-key': sys.key, 'content-type': contentType } });
  // Read to the end, as a sender does: an unread answer keeps its connection from the next request.
  const answer = await res.text();
  if (res.status >= 300) throw new Error(`sluice ${path} answered ${res.status}: ${answer}`);
}

export async function loadSluiceMetrics(sys: RunningSystem, dataset: Dataset): Promise<IngestFigures> {
  const labels = dataset.series.map((s) => Object.entries(s.labels).map(([name, value]) => ({ name, value })));
  let pending: TimeSeriesInput[] = labels.map((l) => ({ labels: l, samples: [] }));
  let samples = 0;
  let sendMs = 0;
  const flush = async (): Promise<void> => {
    const body = encodeRemoteWriteBody({ timeseries: pending });
    const t0 = performance.now();
    await post(sys, '/api/v1/write', body, 'application/x-protobuf');
    sendMs += performance.now() - t0;
    pending = labels.map((l) => ({ labels: l, samples: [] }));
  };
  let inBatch = 0;
  for (const step of dataset.samples()) {
    for (let i = 0; i < pending.length; i++) pending[i].samples.push({ timestamp: step.timestampMs, value: step.values[i] });
    samples += pending.length;
    if (++inBatch === STEPS_PER_REQUEST) {
      await flush();
      inBatch = 0;
    }
  }
  if (inBatch > 0) await flush();
  return { items: samples, seconds: sendMs / 1000, perSecond: samples / (sendMs / 1000) };
}

/**
 * loadSluiceLogs pushes every log line and also writes the lines, one per line, to `rawFile`:
 * the same bytes `grep -F -c` scans as the logs suite's reference.
 */
export async function loadSluiceLogs(sys: RunningSystem, dataset: Dataset, rawFile: string): Promise<IngestFigures> {
  const raw = createWriteStream(rawFile);
  let streams = new Map<string, LokiStreamInput>();
  let inBatch = 0;
  let lines = 0;
  let sendMs = 0;
  const flush = async (): Promise<void> => {
    const body = encodeLokiPushBody({ streams: [...streams.values()] });
    const t0 = performance.now();
    await post(sys, '/loki/api/v1/push', body, 'application/x-protobuf');
    sendMs += performance.now() - t0;
    streams = new Map();
    inBatch = 0;
  };
  for (const log of dataset.logs()) {
    const key = `${log.stream.service_name}|${log.stream.level}`;
    let stream = streams.get(key);
    if (stream === undefined) {
      stream = { labels: log.stream, entries: [] };
      streams.set(key, stream);
    }
    stream.entries.push({ timestampNs: log.timestampNs, line: log.line });
    if (!raw.write(`${log.line}\n`)) await once(raw, 'drain');
    lines++;
    if (++inBatch === LINES_PER_PUSH) await flush();
  }
  if (inBatch > 0) await flush();
  raw.end();
  await once(raw, 'finish');
  return { items: lines, seconds: sendMs / 1000, perSecond: lines / (sendMs / 1000) };
}
