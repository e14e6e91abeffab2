import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ResultsCacheMetrics } from './query/cache/cacheMetrics.js';
import type { WorkerHeap } from './query/workerHeaps.js';

/** BufferedResponse is an open response that may hold bytes its socket has not taken yet. */
export interface BufferedResponse {
  readonly bufferedBytes: number;
}

/**
 * ServiceMetrics is the service's own telemetry, exposed at GET /metrics in the Prometheus
 * text format. The route label is the route pattern, never the raw path, so a scan of random
 * URLs cannot blow up the series count.
 */
/** AdmissionState is what `/metrics` reads of query admission when scraped. */
export interface AdmissionState {
  readonly waiting: number;
  readonly evaluating: number;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'method' | 'status'>;
  readonly duration: Histogram<'route' | 'method'>;
  readonly openStreams: Gauge;
  /**
   * sseBuffers are the open event streams; `sluice_sse_buffered_bytes` sums what they hold when
   * scraped, so writes cost nothing extra.
   */
  readonly sseBuffers = new Set<BufferedResponse>();
  readonly sseBuffered: Gauge;
  readonly inFlight: Gauge;
  readonly ingested: Counter<'signal'>;
  readonly ingestRejected: Counter<'signal' | 'reason' | 'org'>;
  readonly queryTasks: Counter<'outcome'>;
  readonly inlineTasks: Counter;
  readonly abandonedTasks: Counter<'ending'>;
  readonly workerAdmissions: Counter<'outcome'>;
  /** admissionWait is how long queries waited for admission (0 for those let in at once). */
  readonly admissionWait: Histogram;
  /**
   * admission is read when scraped (queries waiting, queries evaluating); the service sets it
   * once its admission exists.
   */
  admission: AdmissionState | undefined;
  /** workerHeaps is read when scraped: each query worker's heap (QueryPool.workerHeaps); the service sets it once its pool exists. */
  workerHeaps: (() => readonly (WorkerHeap | undefined)[]) | undefined;
  readonly queries: Counter<'endpoint' | 'outcome'>;
  /** headFetches and headFetchBytes follow a query process's reads of the heads other processes hold. */
  readonly headFetches: Counter<'outcome'>;
  readonly headFetchBytes: Counter;
  /** headServedBytes follows what a head holder (roles all and ingester) sent to query processes. */
  readonly headServedBytes: Counter;
  /** buildInfo is always 1; its labels say what runs, so dashboards can count processes by role. */
  readonly buildInfo: Gauge<'version' | 'node' | 'role'>;
  readonly resultsCache: ResultsCacheMetrics;

  constructor() {
    // The event loop lag histogram samples on a timer; at the library's 10 ms it woke an idle
    // process 100 times a second (half its idle CPU), at 100 ms ten times, for the same percentiles.
    collectDefaultMetrics({ register: this.registry, prefix: 'sluice_', eventLoopMonitoringPrecision: 100 });
    this.requests = new Counter({
      name: 'sluice_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status (499: client went away).',
      labelNames: ['route', 'method', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'sluice_http_request_duration_seconds',
      help: 'Time from request arrival to the end of its response.',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.openStreams = new Gauge({
      name: 'sluice_open_streams',
      help: 'Server-Sent Event query streams currently open.',
      registers: [this.registry],
    });
    const sseBuffers = this.sseBuffers;
    this.sseBuffered = new Gauge({
      name: 'sluice_sse_buffered_bytes',
      help: 'Bytes open query streams hold for their clients, summed over streams: the worker result being delivered plus text written that the socket has not taken yet (an upper bound). Each stream stays within SVC_SSE_BUFFER_BYTES.',
      registers: [this.registry],
      collect() {
        let sum = 0;
        for (const response of sseBuffers) sum += response.bufferedBytes;
        this.set(sum);
      },
    });
    this.inFlight = new Gauge({
      name: 'sluice_http_requests_in_flight',
      help: 'Requests received and not yet answered.',
      registers: [this.registry],
    });
    this.ingested = new Counter({
      name: 'sluice_ingested_records_total',
      help: 'Records stored by the ingest endpoints: log lines for logs, samples for metrics.',
      labelNames: ['signal'],
      registers: [this.registry],
    });
    this.queryTasks = new Counter({
      name: 'sluice_query_tasks_total',
      help: 'Query slices evaluated (on worker threads, or inline on the answering thread), by outcome: completed, failed, or aborted (client gone, deadline, limit reached).',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.inlineTasks = new Counter({
      name: 'sluice_query_tasks_inline_total',
      help: 'Query slices small enough to be evaluated on the answering thread instead of a worker (SVC_QUERY_INLINE_MAX_SAMPLES, SVC_QUERY_INLINE_MAX_LINES); also counted in sluice_query_tasks_total.',
      registers: [this.registry],
    });
    this.abandonedTasks = new Counter({
      name: 'sluice_query_tasks_abandoned_total',
      help: 'Tasks already running when their query ended, by how they ended: finished within the grace period (answer dropped) or stopped by replacing their worker thread.',
      labelNames: ['ending'],
      registers: [this.registry],
    });
    this.workerAdmissions = new Counter({
      name: 'sluice_query_worker_admissions_total',
      help: 'Queries past their org slot, by how the query workers took them: immediate, queued (waited while the workers were saturated) or refused (429: the wait queue was full or the wait passed the deadline).',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.admissionWait = new Histogram({
      name: 'sluice_query_admission_wait_seconds',
      help: 'Time queries past their org slot waited for an evaluation slot (SVC_MAX_CONCURRENT_QUERIES) or for saturated workers, refused ones included.',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    const admissionOf = (): AdmissionState | undefined => this.admission;
    new Gauge({
      name: 'sluice_query_admission_waiting',
      help: 'Queries waiting for admission across orgs (for an evaluation slot or saturated workers), paused slow-reader queries waiting to resume included.',
      registers: [this.registry],
      collect() {
        this.set(admissionOf()?.waiting ?? 0);
      },
    });
    new Gauge({
      name: 'sluice_queries_evaluating',
      help: 'Queries holding an evaluation slot (at most SVC_MAX_CONCURRENT_QUERIES): admitted and not yet through their last slice, and not waiting for a slow client.',
      registers: [this.registry],
      collect() {
        this.set(admissionOf()?.evaluating ?? 0);
      },
    });
    const workerHeapsOf = (): readonly (WorkerHeap | undefined)[] => this.workerHeaps?.() ?? [];
    const workerHeapGauge = (name: string, help: string, figure: (heap: WorkerHeap) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['worker'],
        registers: [this.registry],
        collect() {
          // Replaced workers leave no series behind: the positions are the running threads'.
          this.reset();
          workerHeapsOf().forEach((heap, worker) => heap !== undefined && this.set({ worker: String(worker) }, figure(heap)));
        },
      });
    };
    // The process's own heap gauges (sluice_nodejs_heap_*) are the answering thread's only.
    workerHeapGauge('sluice_query_worker_heap_used_bytes', 'V8 heap in use by each query worker thread after its latest task, by position in the pool.', (h) => h.usedBytes);
    workerHeapGauge('sluice_query_worker_heap_size_bytes', "V8 heap each query worker thread holds (what it adds to the process's resident memory, roughly), after its latest task.", (h) => h.totalBytes);
    workerHeapGauge('sluice_query_worker_external_bytes', "Memory outside the heap held by each query worker thread's objects (decoded columns, buffers), after its latest task.", (h) => h.externalBytes);
    this.queries = new Counter({
      name: 'sluice_queries_total',
      help: 'Query requests by endpoint and outcome (ok, error, client_closed, client_stalled: cancelled after its client stopped reading, deadline, rejected).',
      labelNames: ['endpoint', 'outcome'],
      registers: [this.registry],
    });
    this.headFetches = new Counter({
      name: 'sluice_head_fetches_total',
      help: 'Fetches of an org\'s heads from the processes holding them (query processes), by outcome: ok, or failed (no answer in time, an error, an answer too large, or partitions no longer held; the query answered from the segments as a partial result).',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.headFetchBytes = new Counter({
      name: 'sluice_head_fetch_bytes_total',
      help: 'Bytes of head data received from the processes holding heads (chunks kept from earlier answers are not sent again).',
      registers: [this.registry],
    });
    this.headServedBytes = new Counter({
      name: 'sluice_head_served_bytes_total',
      help: 'Bytes of head data this process sent to query processes over the internal head endpoint (only the series and streams a query\'s selectors match, within its time range; chunks the asker kept are named, not sent).',
      registers: [this.registry],
    });
    this.buildInfo = new Gauge({
      name: 'sluice_build_info',
      help: 'Always 1: the version, the Node.js version and the role (all, ingest, ingester, query, compactor) of this process.',
      labelNames: ['version', 'node', 'role'],
      registers: [this.registry],
    });
    this.ingestRejected = new Counter({
      name: 'sluice_ingest_rejected_records_total',
      help:
        'Records dropped at ingest, by signal, reason (invalid_timestamp, too_far_in_future, too_old, ' +
        'max_label_names_per_series, max_label_names_per_stream, label_name_too_long, label_value_too_long, line_too_long, ' +
        'max_line_attributes, line_attributes_too_large, invalid_labels, invalid_point, series_limit, stream_limit, rate_limited) ' +
        'and org id (orgs exist only when an admin creates them, so the label stays bounded): ' +
        'log lines for logs; samples for remote write, data points for OTLP metrics (samples when rate_limited).',
      labelNames: ['signal', 'reason', 'org'],
      registers: [this.registry],
    });
    this.resultsCache = new ResultsCacheMetrics(this.registry);
  }
}
