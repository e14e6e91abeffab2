import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/index.js';
import type { Dataset } from '../peers/dataset.js';
import { cpuSeconds } from '../peers/procStats.js';
import { busyShare, harnessCpuSeconds, machineCpuTimes } from './machineCpu.js';
import type { RoleProcess } from './fleet.js';

/**
 * Loads the dataset through the ingest replicas' remote write endpoint and times it, one
 * phase per ingest replica count. The scrapes are split in time into as many equal parts as
 * there are phases, and each phase writes its part through the first `replicas` ingest
 * processes. The same number of senders write in every phase (each owns a fixed share of the
 * series, so a series' samples always arrive in time order, and sender j writes to replica
 * j mod replicas, as behind a load balancer); only the number of replicas changes. A sample
 * counts once its request was acknowledged (204), which the ingest role gives only after
 * JetStream stored it. Bodies are encoded before a phase's clock starts, so the harness's own
 * protobuf work is not counted against the replicas.
 */
const STEPS_PER_REQUEST = 20;

export interface IngestPhaseResult {
  ingestReplicas: number;
  senders: number;
  samples: number;
  requests: number;
  seconds: number;
  samplesPerSecond: number;
  /** CPU seconds summed over every Sluice process during the phase. */
  sluiceCpuSeconds: number;
  /** Cores the Sluice processes kept busy on average (CPU seconds per second). */
  sluiceCores: number;
  /** Cores the benchmark's own senders kept busy on average. */
  harnessCores: number;
  /** Share of the whole machine's CPU time that was busy (Sluice, backends and the harness). */
  machineBusy: number;
  errors: number;
  firstError?: string;
  ratioToOne: number;
}

interface EncodedRequest {
  body: Uint8Array;
  samples: number;
}

/** encodePhases splits the dataset into one list of encoded requests per phase and sender. */
function encodePhases(dataset: Dataset, phases: number, senders: number): EncodedRequest[][][] {
  const labels = dataset.series.map((s) => Object.entries(s.labels).map(([name, value]) => ({ name, value })));
  const owned: number[][] = Array.from({ length: senders }, () => []);
  labels.forEach((_, i) => owned[i % senders].push(i));
  const out: EncodedRequest[][][] = Array.from({ length: phases }, () => Array.from({ length: senders }, () => []));
  const fresh = (): TimeSeriesInput[][] => owned.map((series) => series.map((i) => ({ labels: labels[i], samples: [] })));
  let pending = fresh();
  let inBatch = 0;
  let phase = 0;
  const flush = (): void => {
    pending.forEach((series, sender) => {
      const samples = series.reduce((n, s) => n + s.samples.length, 0);
      if (samples > 0) out[phase][sender].push({ body: encodeRemoteWriteBody({ timeseries: series }), samples });
    });
    pending = fresh();
    inBatch = 0;
  };
  let step = 0;
  for (const scrape of dataset.samples()) {
    const phaseOfStep = Math.min(phases - 1, Math.floor((step * phases) / dataset.steps));
    if (phaseOfStep !== phase) {
      flush();
      phase = phaseOfStep;
    }
    pending.forEach((series, sender) => series.forEach((s, k) => s.samples.push({ timestamp: scrape.timestampMs, value: scrape.values[owned[sender][k]] })));
    if (++inBatch === STEPS_PER_REQUEST) flush();
    step++;
  }
  flush();
  return out;
}

async function send(target: RoleProcess, request: EncodedRequest): Promise<void> {
  const res = await fetch(`${target.system.url}/api/v1/write`, {
    method: 'POST',
    body: request.body,
    headers: { 'x-svc-api-key': target.system.key, 'content-type': 'application/x-protobuf' },
  });
  const text = await res.text();
  if (res.status !== 204) throw new Error(`${target.label} answered ${res.status}: ${text.slice(0, 300)}`);
}

function sumCpu(processes: RoleProcess[]): number {
  return processes.reduce((total, p) => {
    try {
      return total + cpuSeconds(p.system.process.pid);
    } catch {
      return total;
    }
  }, 0);
}

export async function runIngestPhases(dataset: Dataset, ingest: RoleProcess[], replicaCounts: number[], senders: number, everyProcess: () => RoleProcess[], log: (line: string) => void): Promise<IngestPhaseResult[]> {
  const phases = encodePhases(dataset, replicaCounts.length, senders);
  const results: IngestPhaseResult[] = [];
  for (let p = 0; p < replicaCounts.length; p++) {
    const replicas = ingest.slice(0, replicaCounts[p]);
    const errors: string[] = [];
    let samples = 0;
    let requests = 0;
    const cpuBefore = sumCpu(everyProcess());
    const machineBefore = machineCpuTimes();
    const harnessBefore = harnessCpuSeconds();
    const started = performance.now();
    await Promise.all(
      phases[p].map(async (list, sender) => {
        const target = replicas[sender % replicas.length];
        for (const request of list) {
          try {
            await send(target, request);
            samples += request.samples;
            requests++;
          } catch (err) {
            errors.push(err instanceof Error ? err.message : String(err));
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sluiceCpuSeconds = sumCpu(everyProcess()) - cpuBefore;
    const row: IngestPhaseResult = {
      ingestReplicas: replicas.length,
      senders,
      samples,
      requests,
      seconds: Number(seconds.toFixed(2)),
      samplesPerSecond: samples / seconds,
      sluiceCpuSeconds: Number(sluiceCpuSeconds.toFixed(2)),
      sluiceCores: Number((sluiceCpuSeconds / seconds).toFixed(2)),
      harnessCores: Number(((harnessCpuSeconds() - harnessBefore) / seconds).toFixed(2)),
      machineBusy: Number(busyShare(machineBefore, machineCpuTimes()).toFixed(3)),
      errors: errors.length,
      ...(errors.length > 0 ? { firstError: errors[0] } : {}),
      ratioToOne: 1,
    };
    results.push(row);
    log(`ingest through ${row.ingestReplicas} replica(s): ${row.samples} samples in ${row.seconds} s, ${Math.round(row.samplesPerSecond)}/s, ${row.errors} errors`);
  }
  const one = results.find((r) => r.ingestReplicas === 1) ?? results[0];
  for (const r of results) r.ratioToOne = Number((r.samplesPerSecond / one.samplesPerSecond).toFixed(3));
  return results;
}
