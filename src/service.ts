import type { DestinationStream, Logger } from 'pino';
import { Storage } from '../engine/index.js';
import { KeyAdmin } from './auth/apiKeys.js';
import { KeyIndex } from './auth/keyIndex.js';
import { RateLimiter } from './auth/rateLimit.js';
import type { Config } from './config.js';
import { Router, type RouteSpec } from './http/router.js';
import { HttpServer } from './http/server.js';
import { createLogger } from './log.js';
import { dashboardRoutes } from './dashboards/index.js';
import { FileMetaStore } from './meta/fileStore.js';
import { OrgRetention } from './meta/orgRetention.js';
import type { MetaStore } from './meta/types.js';
import { ServiceMetrics } from './metrics.js';
import { healthRoutes } from './routes/health.js';
import { helperRoutes } from './routes/helpers/index.js';
import { ingestRoutes } from './routes/ingest.js';
import { ingestLimitsFor, serviceIngestLimits } from './routes/ingestLimits.js';
import { queryRoutes } from './routes/query.js';
import { QueryPool } from './query/pool.js';
import { OrgGate } from './query/stream.js';
import { validateRoutes } from './routes/validate.js';
import { toolGatewayRoutes } from './mcp/index.js';
import { QueryCollector } from './query/collect.js';

export interface StartOptions {
  /** logDestination replaces stdout for the JSON log (tests capture it). */
  logDestination?: DestinationStream;
  /** announce receives the one-time message with a freshly created default key. */
  announce?: (text: string) => void;
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
async function bootstrapAccess(config: Config, store: MetaStore, log: Logger, announce: (text: string) => void): Promise<void> {
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
  const org = await admin.createOrg('default');
  const { record, key } = await admin.createKey(org.id, 'default');
  log.info({ org: org.id, keyId: record.id }, 'created default org and API key');
  announce(
    [
      '',
      'Sluice created a default org and API key. The key is shown only this once; keep it:',
      `  org id:  ${org.id}`,
      `  key id:  ${record.id}`,
      `  API key: ${key}`,
      `Try: curl -H 'x-svc-api-key: ${key}' http://localhost:${config.port}/api/v1/ping`,
      '',
    ].join('\n'),
  );
}

/** startService opens the stores, bootstraps access, and starts listening. */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const log = createLogger(config.logLevel, options.logDestination);
  const store = await FileMetaStore.open(config.dataDir, { watchChanges: true });
  await bootstrapAccess(config, store, log, options.announce ?? ((text) => process.stderr.write(text + '\n')));
  const keyIndex = await KeyIndex.create(store, config.mcpApiKey);
  const orgRetention = await OrgRetention.create(store);
  const storage = await Storage.open({
    dir: config.dataDir,
    indexedTags: config.indexedTags,
    headMaxBytes: config.headMaxBytes,
    headMaxAgeMs: config.headMaxAgeMs,
    segmentTargetBytes: config.segmentTargetBytes,
    segmentCacheBytes: config.segmentCacheBytes,
    retentionMs: config.retentionDays * 86_400_000,
    retentionFor: (org) => orgRetention.retentionMs(org),
    compactionIntervalMs: config.compactionIntervalMs,
    onEvent: (e) => log[e.level](e.fields ?? {}, e.message),
  });
  const metrics = new ServiceMetrics();
  const pool = new QueryPool(config.queryWorkers, metrics, (err) => log.debug({ err: err.message }, 'query pool dropped a late worker message'));
  const router = new Router();
  const gate = new OrgGate(config.maxQueriesPerOrg);
  const planLimits = {
    storage,
    pool,
    maxSamples: config.maxSamples,
    lookbackMs: 5 * 60_000,
    shardMinSamples: config.queryShardMinSamples,
    maxSeries: 100_000,
    rawTaskRows: config.queryRawTaskRows,
  };
  const windowLimits = { defaultMaxDataPoints: config.defaultMaxDataPoints, maxPointsPerSeries: config.maxPointsPerSeries };
  const toolGateway = toolGatewayRoutes({
    store,
    storage,
    collector: new QueryCollector({ ...planLimits, gate, timeoutMs: config.queryTimeoutMs }),
    windowLimits,
    callTimeoutMs: config.mcpCallTimeoutMs,
    upstreamTimeoutMs: config.mcpUpstreamTimeoutMs,
  });
  const routes: RouteSpec[] = [
    ...healthRoutes(metrics, config.metricsRequireKey),
    ...validateRoutes(),
    ...ingestRoutes({
      storage,
      metrics,
      maxBodyBytes: config.maxBodyBytes,
      limitsFor: ingestLimitsFor(serviceIngestLimits(config), (org) => orgRetention.retentionMs(org)),
      streamTags: new Set(config.indexedTags),
    }),
    ...queryRoutes({
      ...planLimits,
      ...windowLimits,
      metrics,
      gate,
      heartbeatMs: config.heartbeatMs,
      timeoutMs: config.queryTimeoutMs,
      defaultLogLimit: config.defaultLogLimit,
      maxLogLimit: 100_000,
    }),
    ...helperRoutes({ storage }),
    ...dashboardRoutes({ store }),
    ...toolGateway.routes,
  ];
  for (const route of routes) router.add(route);
  const server = new HttpServer({
    router,
    keyIndex,
    rateLimiter: new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst),
    metrics,
    log,
    maxBodyBytes: config.maxBodyBytes,
  });
  const port = await server.listen(config.host, config.port);
  log.info({ host: config.host, port, dataDir: config.dataDir, systemKey: config.mcpApiKey !== undefined }, 'sluice listening');

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      server.stopAccepting();
      const idle = await server.waitIdle(config.shutdownTimeoutMs);
      if (!idle) log.warn({ inFlight: server.requestsInFlight }, 'shutdown timeout reached with requests still in flight');
      keyIndex.close();
      orgRetention.close();
      await pool.close();
      await storage.close();
      await store.close();
      log.info('sluice stopped');
      log.flush();
    })());
  return { port, log, store, storage, server, metrics, stop };
}
