import type { DestinationStream, Logger } from 'pino';
import { delayedNameRemovalOn, setPromQLFeatures } from '../engine/promql/features.js';
import { Storage, type AppliedRefusal, type StorageEvent } from '../engine/index.js';
import { openSegmentStore } from './segmentStore.js';
import { openWriteLog } from './writeLogBackend.js';
import { KeyAdmin } from './auth/apiKeys.js';
import { FailedAuthLimiter } from './auth/failedAuth.js';
import { KeyIndex } from './auth/keyIndex.js';
import { RateLimiter } from './auth/rateLimit.js';
import { lockDataDir } from './dataDirLock.js';
import type { Config } from './config.js';
import { Router, type RouteSpec } from './http/router.js';
import { HttpServer } from './http/server.js';
import { uwsBuild } from './http/uws.js';
import { createLogger } from './log.js';
import { dashboardRoutes } from './dashboards/index.js';
import { openMetaStores } from './metaStores.js';
import { OrgSettingsView } from './meta/orgSettingsView.js';
import { MetaConflictError, type MetaStore } from './meta/types.js';
import { ServiceMetrics } from './metrics.js';
import { healthRoutes } from './routes/health.js';
import { helperRoutes } from './routes/helpers/index.js';
import { ingestRoutes } from './routes/ingest.js';
import { ingestLimitsFor, serviceIngestLimits } from './ingest/limits.js';
import { IngestService } from './ingest/ingestService.js';
import { openExemplarStore, saveExemplarStore } from './exemplars/exemplarFile.js';
import { localExemplars, type ExemplarReader } from './exemplars/exemplarReader.js';
import { exemplarRoutes } from './cluster/exemplarRoutes.js';
import { PeerExemplarClient } from './cluster/peerExemplarClient.js';
import { orgSettingsRoutes } from './routes/orgSettings.js';
import { IngestRateLimiter } from './ingest/rateLimiter.js';
import { AppliedRefusals, appliedLimitsOf } from './ingest/appliedLimits.js';
import { queryRoutes } from './routes/query.js';
import { prometheusRoutes } from './prometheus/routes.js';
import { lokiRoutes } from './loki/routes.js';
import { lokiTailRoute } from './loki/lokiTail.js';
import { QueryPool } from './query/pool.js';
import { SegmentThread } from './query/segmentThread.js';
import { OrgGate } from './query/stream.js';
import { WorkerAdmission, evaluationCap } from './query/workerAdmission.js';
import { validateRoutes } from './routes/validate.js';
import { toolGatewayRoutes } from './mcp/index.js';
import { QueryCollector } from './query/collect.js';
import { QueryResultsCache } from './query/cache/queryResultsCache.js';
import { rawTaskBytesFor } from './query/plans.js';
import { webAppRoutes } from './webApp/routes.js';
import { loadOpenApiDocument } from './routes/helpers/openapi.js';
import { roleBackendProblem } from './roles/backendCheck.js';
import { elsewhereRoutes } from './roles/elsewhereRoutes.js';
import { componentsOf, ROLE_TABLE } from './roles/roles.js';
import { StartupError } from './startupError.js';
import type { SharedCatalogStore } from '../engine/storage/catalogStore.js';
import { ClusterMetrics } from './cluster/clusterMetrics.js';
import { logPartitionsOf, needsWriteLog, newOwnerId, scaledOut, startClusterParts } from './cluster/clusterParts.js';
import { headRoutes } from './cluster/headRoutes.js';
import { internalTokenProblem } from './cluster/internalToken.js';
import { openPartitionOwners } from './cluster/owners.js';
import { PeerHeadClient } from './cluster/peerHeadClient.js';
import { packageVersion } from './version.js';

export interface StartOptions {
  /** logDestination replaces stdout for the JSON log (tests capture it). */
  logDestination?: DestinationStream;
  /** announce receives the one-time message with a freshly created default key. */
  announce?: (text: string) => void;
  /** webDir serves another build of the web app than dist/web (the web benchmark's baseline). */
  webDir?: string;
}

export interface RunningService {
  port: number;
  log: Logger;
  store: MetaStore;
  storage: Storage;
  server: HttpServer;
  metrics: ServiceMetrics;
  /** stop drains in-flight requests (up to the configured timeout) and closes the stores. */
  stop(): Promise<void>;
}

/**
 * bootstrapAccess makes sure someone can use a fresh installation: SVC_BOOTSTRAP_ORG and
 * SVC_BOOTSTRAP_API_KEY provision a known org and key for unattended deployments; otherwise an
 * empty store gets a default org and key, announced once (they are never shown again).
 */
async function bootstrapAccess(config: Config, port: number, store: MetaStore, log: Logger, announce: (text: string) => void): Promise<void> {
  const admin = new KeyAdmin(store);
  if (config.bootstrapOrg !== undefined) {
    const { org, created } = await admin.ensureOrg(config.bootstrapOrg);
    if (created) log.info({ org: org.id, name: org.name }, 'bootstrap org created');
    if (config.bootstrapApiKey !== undefined && (await admin.ensureKey(org.id, config.bootstrapApiKey))) {
      log.info({ org: org.id }, 'bootstrap API key stored');
    }
    return;
  }
  if ((await store.listOrgs()).length > 0) return;
  let org;
  try {
    org = await admin.createOrg('default');
  } catch (err) {
    // Replicas over one shared store start together; the one that created the org announces the key.
    if (err instanceof MetaConflictError) return;
    throw err;
  }
  const { record, key } = await admin.createKey(org.id, 'default');
  log.info({ org: org.id, keyId: record.id }, 'created default org and API key');
  announce(
    [
      '',
      'Sluice created a default org and API key. The key is shown only this once; keep it:',
      `  org id:  ${org.id}`,
      `  key id:  ${record.id}`,
      `  API key: ${key}`,
      `Try: curl -H 'x-svc-api-key: ${key}' http://localhost:${port}/api/v1/ping`,
      '',
    ].join('\n'),
  );
}

/**
 * startService locks the data directory, binds the port, opens the stores, bootstraps access
 * and starts serving. The order is deliberate: a second server on the same directory or port
 * fails before it touches anything, and a first API key is created and printed only once the
 * port is ours. Whatever was taken is released again when a later step fails.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  // First, before any store is opened: on a Node or glibc no uWebSockets.js build supports,
  // the service stops here with UwsUnavailableError rather than failing on its first request.
  const http = uwsBuild();
  // Queries parsed without explicit options admit what the configured feature flags admit.
  setPromQLFeatures(config.promqlFeatures);
  const log = createLogger(config.logLevel, options.logDestination);
  log.info({ build: http.name, node: process.versions.node }, 'uWebSockets.js build loaded');
  // A role that needs shared backends stops here, before it takes the data directory or a port.
  const roleProblem = roleBackendProblem(config);
  if (roleProblem !== undefined) throw new StartupError(roleProblem);
  const tokenProblem = internalTokenProblem(config);
  if (tokenProblem !== undefined) throw new StartupError(tokenProblem);
  const unlock = lockDataDir(config.dataDir);
  const metrics = new ServiceMetrics();
  metrics.buildInfo.set({ version: packageVersion(), node: process.versions.node, role: config.role }, 1);
  const router = new Router();
  const server = new HttpServer({
    router,
    rateLimiter: new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst),
    failedAuth: new FailedAuthLimiter(config.authFailuresPerMinute),
    metrics,
    log,
    maxBodyBytes: config.maxBodyBytes,
    compression: config.httpCompression,
  });
  const cleanups: Array<() => unknown> = [unlock];
  try {
    const port = await server.listen(config.host, config.port);
    cleanups.unshift(() => server.stopAccepting());
    return await startOnPort(config, options, { log, metrics, router, server, port, unlock, cleanups });
  } catch (err) {
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch (cleanupErr) {
        log.warn({ err: cleanupErr }, 'clean-up after a failed start failed');
      }
    }
    throw err;
  }
}

interface Bound {
  log: Logger;
  metrics: ServiceMetrics;
  router: Router;
  server: HttpServer;
  port: number;
  unlock: () => void;
  /** cleanups undo what start-up has done so far, newest first, should a later step fail. */
  cleanups: Array<() => unknown>;
}

/**
 * startOnPort opens the stores and routes behind a bound port and starts serving. Which parts
 * run is decided by the role's row in ROLE_TABLE (src/roles/roles.ts) and nowhere else: the
 * ingest routes, the query side (worker pool, query and read routes, dashboards, tool gateway,
 * web UI), the background head cuts and the compaction and retention loop. Routes of the parts
 * left out answer with the role that serves them.
 */
async function startOnPort(config: Config, options: StartOptions, bound: Bound): Promise<RunningService> {
  const { log, metrics, router, server, port, unlock, cleanups } = bound;
  const components = componentsOf(config.role);
  const storageEvents = (e: StorageEvent) => log[e.level](e.fields ?? {}, e.message);
  const shared = scaledOut(config);
  // Scaled out, the catalog is the one every process shares; the start-up check asked for
  // PostgreSQL metadata, and the catalog follows it unless SVC_CATALOG_STORE says otherwise.
  if (shared && config.catalogStore !== 'postgres') {
    throw new StartupError(`role ${config.role} runs beside other Sluice processes and needs the segment catalog in PostgreSQL (SVC_CATALOG_STORE=postgres, now ${config.catalogStore})`);
  }
  const ownerId = newOwnerId();
  const stores = await openMetaStores(config, { watchChanges: true, catalog: true, onEvent: storageEvents, leaseOwner: shared && components.has('heads') ? ownerId : undefined });
  cleanups.unshift(() => stores.close());
  const store = stores.meta;
  await bootstrapAccess(config, port, store, log, options.announce ?? ((text) => process.stderr.write(text + '\n')));
  const keyIndex = await KeyIndex.create(store, config.mcpApiKey);
  cleanups.unshift(() => keyIndex.close());
  const orgSettings = await OrgSettingsView.create(store, config);
  cleanups.unshift(() => orgSettings.close());
  const segmentStore = await openSegmentStore(config, storageEvents);
  cleanups.unshift(() => segmentStore?.close());
  // A query process of a scaled-out installation only reads: the catalog, the segment files and
  // the heads the partitions' owners serve it.
  const readOnly = config.role === 'query' && !config.roleEmbedded;
  const owners = readOnly ? openPartitionOwners(config, stores.database) : undefined;
  cleanups.unshift(() => owners?.close());
  const writeLog = !readOnly && needsWriteLog(config) ? await openWriteLog(config, storageEvents) : undefined;
  cleanups.unshift(() => writeLog?.close());
  const peers =
    owners && config.internalToken !== undefined
      ? new PeerHeadClient({
          owners,
          partitions: config.writeLogPartitions,
          token: config.internalToken,
          timeoutMs: config.headFetchTimeoutMs,
          maxBytes: config.headFetchMaxBytes,
          onFetch: (outcome, bytes) => {
            metrics.headFetches.inc({ outcome });
            metrics.headFetchBytes.inc(bytes);
          },
        })
      : undefined;
  if (readOnly && peers === undefined) log.warn('no head holders configured (SVC_INGESTER_URLS, or the partition leases with SVC_META_STORE=postgres and SVC_INTERNAL_TOKEN): queries read stored segments only, so data not yet cut is not seen');
  // Exemplars are kept where remote write runs with the embedded WAL, else by the ingesters (see Storage.appendExemplars).
  const exemplars = await openExemplarStore(config.dataDir, config.maxExemplarsPerOrg, log);
  // A query process reads exemplars from the ingesters, as it reads their heads.
  const exemplarReader: ExemplarReader =
    owners && config.internalToken !== undefined
      ? new PeerExemplarClient({ owners, partitions: config.writeLogPartitions, token: config.internalToken, timeoutMs: config.headFetchTimeoutMs, maxBytes: config.headFetchMaxBytes })
      : localExemplars(exemplars);
  const refusals = new AppliedRefusals(metrics, log);
  const storage = await Storage.open({
    readOnly,
    peers,
    exemplars,
    writeLog,
    sharedCatalog: shared ? (stores.catalog as SharedCatalogStore) : undefined,
    // The lease owner id is random per process, so it names this process's segments too.
    writerId: shared ? ownerId : undefined,
    logPartitions: logPartitionsOf(config),
    // An ingester checks the org's active series and stream limits as it reads the log: the
    // ingest processes that published the records keep no heads to check them against.
    ...(shared && components.has('heads')
      ? { appliedLimits: appliedLimitsOf(ingestLimitsFor(serviceIngestLimits(config), orgSettings)), onLimitRefusal: (org: string, r: AppliedRefusal) => refusals.record(org, r) }
      : {}),
    dir: config.dataDir,
    blobStore: segmentStore,
    catalogStore: stores.catalog,
    indexedTags: config.indexedTags,
    headMaxBytes: config.headMaxBytes,
    headMaxAgeMs: config.headMaxAgeMs,
    segmentTargetBytes: config.segmentTargetBytes,
    segmentCacheBytes: config.segmentCacheBytes,
    retentionMs: config.retentionDays * 86_400_000,
    retentionFor: (org, signal) => orgSettings.retentionMs(org, signal),
    // 0 turns a background loop off; the storage's own default interval applies otherwise.
    maintenanceIntervalMs: components.has('heads') ? undefined : 0,
    // Scaled out, the compactor's leader election runs compaction (startClusterParts), not the storage's timer.
    compactionIntervalMs: components.has('compaction') && !shared ? config.compactionIntervalMs : 0,
    onEvent: storageEvents,
  });
  // Cuts and merges encode on a thread of their own, so they do not stall requests or writes.
  // Closed after the storage, which waits for a cut or merge under way.
  if (components.has('heads') || components.has('compaction')) {
    const segmentThread = new SegmentThread();
    storage.encodeSegmentsWith(segmentThread.encoders());
    cleanups.unshift(() => segmentThread.close());
  }
  cleanups.unshift(() => storage.close());
  const cluster = shared
    ? await startClusterParts({ config, storage, database: stores.database!, ownerId, port, metrics: new ClusterMetrics(metrics.registry), onEvent: storageEvents })
    : undefined;
  cleanups.unshift(() => cluster?.stop());
  const openApi = loadOpenApiDocument();
  // One cache per process, made before ingest so late writes can drop what they make stale.
  const resultsCache = components.has('queryApi') && config.resultsCache
    ? new QueryResultsCache(
        { budgetBytes: config.resultsCacheBytes, maxFreshnessMs: cacheFreshnessMs(config, readOnly), splitMs: config.resultsCacheSplitMs },
        metrics.resultsCache,
      )
    : undefined;
  if (resultsCache !== undefined) cleanups.unshift(store.onChange(() => resultsCache.metadataChanged()));
  const routes: RouteSpec[] = [...healthRoutes(metrics, config.metricsRequireKey, { role: config.role, components: ROLE_TABLE[config.role].components })];
  if (components.has('heads')) {
    routes.push(...headRoutes({ storage, token: config.internalToken, maxBytes: config.headFetchMaxBytes, onServe: (bytes) => metrics.headServedBytes.inc(bytes) }));
    routes.push(...exemplarRoutes({ exemplars, token: config.internalToken, maxBytes: config.headFetchMaxBytes }));
  }
  if (components.has('ingestApi')) {
    routes.push(
      ...ingestRoutes(new IngestService({
        storage,
        metrics,
        maxBodyBytes: config.maxBodyBytes,
        limitsFor: ingestLimitsFor(serviceIngestLimits(config), orgSettings),
        streamTags: new Set(config.indexedTags),
        rateLimiter: new IngestRateLimiter(undefined, cluster?.ingestRateShare),
        createdTimestampZero: config.createdTimestampZeroIngestion,
        otlpExponentialHistograms: config.otlpExponentialHistograms,
        metricsWritten: resultsCache && ((org, minMs, maxMs) => resultsCache.metricsWritten(org, minMs, maxMs)),
        logsWritten: resultsCache && ((org, minMs, maxMs) => resultsCache.logsWritten(org, minMs, maxMs)),
      })),
    );
  }
  let pool: QueryPool | undefined;
  if (components.has('queryApi')) {
    const query = queryComponent(config, { log, metrics, store, storage, orgSettings, exemplars: exemplarReader, openApi, webDir: options.webDir, resultsCache });
    pool = query.pool;
    cleanups.unshift(() => query.pool.close());
    routes.push(...query.routes);
    server.webSocket(query.tail);
  }
  for (const route of routes) router.add(route);
  for (const route of elsewhereRoutes(config.role, router, openApi)) router.add(route);
  server.open(keyIndex);
  log.info({ host: config.host, port, dataDir: config.dataDir, role: config.role, components: [...components], systemKey: config.mcpApiKey !== undefined }, 'sluice listening');

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      server.stopAccepting();
      let idle = await server.waitIdle(config.shutdownTimeoutMs);
      if (!idle) {
        // Streams still open get their terminal event now, so clients learn the query did not finish.
        log.warn({ inFlight: server.requestsInFlight }, 'shutdown timeout reached; ending the requests still in flight');
        server.endStreams();
        idle = await server.waitIdle(STREAM_END_GRACE_MS);
        if (!idle) log.warn({ inFlight: server.requestsInFlight }, 'requests still in flight at exit');
      }
      keyIndex.close();
      orgSettings.close();
      await pool?.close();
      await cluster?.stop();
      await storage.close();
      await writeLog?.close();
      await owners?.close();
      await saveExemplarStore(config.dataDir, exemplars).catch((err: unknown) => log.warn({ err }, 'saving exemplars failed'));
      await stores.close();
      unlock();
      log.info('sluice stopped');
      log.flush();
    })());
  return { port, log, store, storage, server, metrics, stop };
}

interface QueryDeps {
  log: Logger;
  metrics: ServiceMetrics;
  store: MetaStore;
  storage: Storage;
  orgSettings: OrgSettingsView;
  exemplars: ExemplarReader;
  openApi: Buffer;
  /** webDir serves another build of the web app than dist/web. */
  webDir?: string;
  /** resultsCache serves the steps it holds; undefined when SVC_RESULTS_CACHE is off. */
  resultsCache: QueryResultsCache | undefined;
}

/**
 * queryComponent builds the query side: the worker pool and, over it, every route that reads
 * (SSE queries, validate and helper endpoints, Prometheus and Loki read APIs and Loki tail,
 * dashboards, org settings, the tool gateway and the web app).
 */
function queryComponent(config: Config, deps: QueryDeps): { pool: QueryPool; routes: RouteSpec[]; tail: ReturnType<typeof lokiTailRoute> } {
  const { log, metrics, store, storage, orgSettings, exemplars, openApi, webDir, resultsCache } = deps;
  const pool = new QueryPool(config.queryWorkers, metrics, (err) => log.debug({ err: err.message }, 'query pool dropped a late worker message'), config.queryBacklogPerWorker, {
    segmentCacheBytes: Math.floor(config.workerSegmentCacheBytes / config.queryWorkers),
    allocationProfileDir: config.workerAllocationProfileDir,
  });
  const admission = new WorkerAdmission(
    pool,
    { maxWaiting: config.maxQueriesWaitingForWorkers, maxEvaluating: evaluationCap(config.maxConcurrentQueries, config.queryWorkers) },
    (outcome, waitedMs) => {
      metrics.workerAdmissions.inc({ outcome });
      metrics.admissionWait.observe(waitedMs / 1000);
    },
  );
  metrics.admission = admission;
  metrics.workerHeaps = () => pool.workerHeaps();
  const gate = new OrgGate(admission);
  const queryLimitsFor = (org: string) => orgSettings.queryLimits(org);
  const planLimits = {
    storage,
    pool,
    maxSamples: config.maxSamples,
    lookbackMs: 5 * 60_000,
    delayedNameRemoval: delayedNameRemovalOn(config.promqlFeatures),
    shardMinSamples: config.queryShardMinSamples,
    inlineMaxSamples: config.queryInlineMaxSamples,
    inlineMaxLines: config.queryInlineMaxLines,
    maxSeries: config.maxSeriesPerQuery,
    rawTaskRows: config.queryRawTaskRows,
    rawTaskBytes: rawTaskBytesFor(config.sseBufferBytes, config.queryWorkers),
    memoryBytes: config.queryMemoryBytes,
    resultsCache,
  };
  const windowLimits = { defaultMaxDataPoints: config.defaultMaxDataPoints, maxPointsPerSeries: config.maxPointsPerSeries };
  const collector = new QueryCollector({ ...planLimits, gate, queryLimitsFor });
  const toolGateway = toolGatewayRoutes({
    store,
    storage,
    collector,
    windowLimits,
    callTimeoutMs: config.mcpCallTimeoutMs,
    upstreamTimeoutMs: config.mcpUpstreamTimeoutMs,
  });
  const routes: RouteSpec[] = [
    ...validateRoutes(),
    ...queryRoutes({
      ...planLimits,
      ...windowLimits,
      metrics,
      gate,
      queryLimitsFor,
      heartbeatMs: config.heartbeatMs,
      stallTimeoutMs: config.sseStallTimeoutMs,
    }),
    ...prometheusRoutes({
      ...planLimits,
      maxPointsPerSeries: windowLimits.maxPointsPerSeries,
      store,
      metrics,
      gate,
      queryLimitsFor,
      exemplars,
    }),
    ...lokiRoutes({ storage, store, collector, queryLimitsFor, windowLimits }),
    ...helperRoutes({ storage, openApi }),
    ...dashboardRoutes({ store, maxBodyBytes: config.dashboardMaxBodyBytes }),
    ...orgSettingsRoutes({ store, config }),
    ...toolGateway.routes,
    ...webAppRoutes({ dir: webDir }),
  ];
  return { pool, routes, tail: lokiTailRoute({ collector, store }) };
}

/**
 * cacheFreshnessMs is how recent a step may be and still be cached. A query process does not
 * see the writes that make cached steps stale (late-write invalidation runs where ingest runs),
 * so there steps are cached only once they are older than anything the heads still hold
 * (SVC_HEAD_MAX_AGE_MS): recent steps are always evaluated over the freshly fetched heads.
 */
function cacheFreshnessMs(config: Config, readOnly: boolean): number {
  return readOnly ? Math.max(config.resultsCacheMaxFreshnessMs, config.headMaxAgeMs) : config.resultsCacheMaxFreshnessMs;
}

/** STREAM_END_GRACE_MS is how long streams told to end at shutdown get to write their last event. */
const STREAM_END_GRACE_MS = 1000;
