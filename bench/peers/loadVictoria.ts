import { exposition, type Dataset } from './dataset.js';
import type { RunningSystem } from './peers.js';
import type { IngestFigures } from './loadSluice.js';

/**
 * Loads the dataset into VictoriaMetrics through its Prometheus text import API
 * (`/api/v1/import/prometheus`, timestamps in milliseconds), in time-major chunks like the
 * Sluice loader's, then asks it to flush so the samples become searchable at once.
 */
const STEPS_PER_REQUEST = 20;

export async function loadVictoria(sys: RunningSystem, dataset: Dataset): Promise<IngestFigures> {
  const names = dataset.series.map((s) => exposition(s.labels));
  let text = '';
  let inBatch = 0;
  let sendMs = 0;
  const flush = async (): Promise<void> => {
    const t0 = performance.now();
    const res = await fetch(`${sys.url}/api/v1/import/prometheus`, { method: 'POST', body: text, headers: { 'content-type': 'text/plain' } });
    // Read to the end, as a sender does: an unread answer keeps its connection from the next request.
    const answer = await res.text();
    if (res.status >= 300) throw new Error(`victoria-metrics import answered ${res.status}: ${answer}`);
    sendMs += performance.now() - t0;
    text = '';
    inBatch = 0;
  };
  for (const step of dataset.samples()) {
    for (let i = 0; i < names.length; i++) text += `${names[i]} ${step.values[i]} ${step.timestampMs}\n`;
    if (++inBatch === STEPS_PER_REQUEST) await flush();
  }
  if (inBatch > 0) await flush();
  await forceFlush(sys);
  return { items: dataset.sampleCount, seconds: sendMs / 1000, perSecond: dataset.sampleCount / (sendMs / 1000) };
}

/** forceFlush makes recently imported samples visible to queries (VictoriaMetrics buffers them for about a second). */
export async function forceFlush(sys: RunningSystem): Promise<void> {
  const res = await fetch(`${sys.url}/internal/force_flush`);
  await res.arrayBuffer();
}
