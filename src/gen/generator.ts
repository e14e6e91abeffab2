import type { ExportLogsServiceRequestInput, LogRecordInput, TimeSeriesInput, WriteRequestInput } from '../../engine/index.js';
import { INSTANCES, LATENCY_BUCKETS_S, SERVICES, incidentFactor, mulberry32, renderLog, sampleLatency, trafficFactor, type RequestEvent } from './model.js';

export const SCRAPE_INTERVAL_MS = 15_000;

/** MEMORY_LIMIT_BYTES is every demo container's memory limit, well above what the processes use. */
export const MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;

/** START_STAGGER_MS spaces out the demo processes' start times, as pods rolled out one by one would be. */
const START_STAGGER_MS = 90_000;

const SEVERITY: Record<string, number> = { debug: 5, info: 9, warn: 13, error: 17 };

interface RouteState {
  requests: Map<number, number>;
  buckets: Float64Array;
  count: number;
  sum: number;
}

export interface GeneratorOptions {
  seed?: number;
  /** logsPerSecond is the target log volume across all services. */
  logsPerSecond?: number;
}

export interface Batch {
  metrics: WriteRequestInput;
  logs: ExportLogsServiceRequestInput;
  logLines: number;
  samples: number;
}

/**
 * Generator produces the demo world's telemetry scrape by scrape. Counters and histograms are
 * cumulative across calls, as a real exporter's are, so rate() and histogram_quantile() give
 * sensible answers over the generated data.
 */
export class Generator {
  private readonly rand: () => number;
  private readonly state = new Map<string, RouteState>();
  private readonly cpu = new Map<string, number>();
  /** startedMs is each process's start time, fixed at its first scrape so counters and start agree. */
  private readonly startedMs = new Map<string, number>();
  private readonly logsPerSecond: number;
  private traceCounter = 0;

  constructor(options: GeneratorOptions = {}) {
    this.rand = mulberry32(options.seed ?? 42);
    this.logsPerSecond = options.logsPerSecond ?? 20;
  }

  private route(key: string): RouteState {
    let s = this.state.get(key);
    if (!s) this.state.set(key, (s = { requests: new Map(), buckets: new Float64Array(LATENCY_BUCKETS_S.length), count: 0, sum: 0 }));
    return s;
  }

  /** scrape advances the world to `timeMs` (one scrape interval) and returns what it emitted. */
  scrape(timeMs: number): Batch {
    const series: TimeSeriesInput[] = [];
    const events: RequestEvent[] = [];
    const traffic = trafficFactor(timeMs, this.rand);
    const totalRps = SERVICES.reduce((n, s) => n + s.baseRps, 0);
    const logShare = this.logsPerSecond / totalRps;
    let samples = 0;
    const push = (name: string, labels: Record<string, string>, value: number): void => {
      series.push({ labels: [{ name: '__name__', value: name }, ...Object.entries(labels).map(([n, v]) => ({ name: n, value: v }))], samples: [{ value, timestamp: timeMs }] });
      samples++;
    };
    for (const svc of SERVICES) {
      const incident = incidentFactor(svc.name, timeMs);
      for (const instance of INSTANCES) {
        const base = { job: `${svc.namespace}/${svc.name}`, service_name: svc.name, instance: `${svc.name}-${instance}` };
        for (const route of svc.routes) {
          const st = this.route(`${svc.name}|${instance}|${route}`);
          const n = Math.round((svc.baseRps * traffic * SCRAPE_INTERVAL_MS) / 1000 / INSTANCES.length / svc.routes.length);
          const errorP = Math.min(0.9, svc.errorRate * incident.errors);
          for (let i = 0; i < n; i++) {
            const failed = this.rand() < errorP;
            const status = failed ? 500 + (this.rand() < 0.3 ? 3 : 0) : this.rand() < 0.02 ? 404 : 200;
            const durationMs = sampleLatency(svc.latencyMs * incident.latency, this.rand);
            st.requests.set(status, (st.requests.get(status) ?? 0) + 1);
            st.count++;
            st.sum += durationMs / 1000;
            for (let b = 0; b < LATENCY_BUCKETS_S.length; b++) if (durationMs / 1000 <= LATENCY_BUCKETS_S[b]) st.buckets[b]++;
            if (failed || this.rand() < logShare / INSTANCES.length) {
              const offsetNs = BigInt(Math.floor(this.rand() * SCRAPE_INTERVAL_MS * 1e6));
              const traceId = (++this.traceCounter).toString(16).padStart(16, '0');
              events.push({ service: svc, instance, route, status, durationMs, timeNs: BigInt(timeMs - SCRAPE_INTERVAL_MS) * 1_000_000n + offsetNs, traceId });
            }
          }
          for (const [code, total] of st.requests) push('http_requests_total', { ...base, route, code: String(code) }, total);
          LATENCY_BUCKETS_S.forEach((le, b) => push('http_request_duration_seconds_bucket', { ...base, route, le: String(le) }, st.buckets[b]));
          push('http_request_duration_seconds_bucket', { ...base, route, le: '+Inf' }, st.count);
          push('http_request_duration_seconds_sum', { ...base, route }, st.sum);
          push('http_request_duration_seconds_count', { ...base, route }, st.count);
        }
        const cpuKey = `${svc.name}|${instance}`;
        const cpu = (this.cpu.get(cpuKey) ?? 0) + (SCRAPE_INTERVAL_MS / 1000) * (0.05 + 0.3 * traffic * incident.latency * this.rand());
        this.cpu.set(cpuKey, cpu);
        push('process_cpu_seconds_total', base, cpu);
        push('process_resident_memory_bytes', base, Math.round((120 + 40 * traffic + 10 * this.rand()) * 1024 * 1024));
        push('up', base, 1);
        let started = this.startedMs.get(cpuKey);
        if (started === undefined) this.startedMs.set(cpuKey, (started = timeMs - SCRAPE_INTERVAL_MS - this.startedMs.size * START_STAGGER_MS));
        push('process_start_time_seconds', base, Math.floor(started / 1000));
        // What a kubelet's cAdvisor reports: its own labels, no job or service_name.
        push('container_spec_memory_limit_bytes', { namespace: svc.namespace, pod: `${svc.name}-${instance}`, container: svc.name }, MEMORY_LIMIT_BYTES);
      }
    }
    return { metrics: { timeseries: series }, logs: this.logsOf(events), logLines: events.length, samples };
  }

  private logsOf(events: RequestEvent[]): ExportLogsServiceRequestInput {
    const byService = new Map<string, { svc: RequestEvent['service']; instance: string; records: LogRecordInput[] }>();
    for (const e of events) {
      const key = `${e.service.name}|${e.instance}`;
      let group = byService.get(key);
      if (!group) byService.set(key, (group = { svc: e.service, instance: e.instance, records: [] }));
      const { level, line } = renderLog(e, this.rand);
      group.records.push({
        timeUnixNano: e.timeNs,
        severityNumber: SEVERITY[level],
        severityText: level.toUpperCase(),
        body: { stringValue: line },
        attributes: [{ key: 'http.route', value: { stringValue: e.route } }],
      });
    }
    return {
      resourceLogs: [...byService.values()].map((g) => ({
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: g.svc.name } },
            { key: 'service.namespace', value: { stringValue: g.svc.namespace } },
            { key: 'service.instance.id', value: { stringValue: `${g.svc.name}-${g.instance}` } },
            { key: 'k8s.namespace.name', value: { stringValue: g.svc.namespace } },
            { key: 'k8s.pod.name', value: { stringValue: `${g.svc.name}-${g.instance}` } },
          ],
        },
        scopeLogs: [{ scope: { name: 'sluice.demo' }, logRecords: g.records }],
      })),
    };
  }
}
