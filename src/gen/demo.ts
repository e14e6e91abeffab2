import { KeyAdmin } from '../auth/apiKeys.js';
import type { RunningService } from '../service.js';
import { loadExampleDashboards } from './exampleDashboards.js';
import { Generator } from './generator.js';
import { Sender, backfill, live } from './sender.js';

/**
 * startDemo feeds a running service with the demo world so a newcomer sees data at once: on
 * an org with no metrics yet it creates the example dashboards and backfills the last hour,
 * then keeps writing live; an org that already has data keeps the dashboards its users left.
 * It writes through the service's own ingest endpoints with a key made for it and revoked
 * when the demo stops. Returns the function that stops it.
 */
export async function startDemo(service: RunningService, host: string): Promise<() => Promise<void>> {
  const [org] = await service.store.listOrgs();
  if (!org) throw new Error('demo needs an org; none exists');
  const admin = new KeyAdmin(service.store);
  const { key, record } = await admin.createKey(org.id, 'demo-generator');
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${service.port}`;
  const sender = new Sender(url, key);
  const gen = new Generator({ seed: 42 });
  const controller = new AbortController();
  const empty = service.storage.metrics(org.id).labelValues('__name__', [], -Infinity, Infinity).length === 0;
  const log = service.log.child({ component: 'demo' });
  const running = (async () => {
    // Give the key index a moment to see the new key.
    await new Promise((r) => setTimeout(r, 100));
    if (empty) {
      const dashboards = await loadExampleDashboards(url, key, org.id).catch((err: unknown) => {
        log.warn({ err: String(err) }, 'example dashboards not loaded');
        return [];
      });
      if (dashboards.length > 0) log.info({ org: org.id, dashboards }, 'example dashboards created');
      const now = Date.now();
      const stats = await backfill(gen, sender, now - 3_600_000, now, { signal: controller.signal });
      if (controller.signal.aborted) log.info({ org: org.id, ...stats }, 'demo backfill stopped early');
      else log.info({ org: org.id, ...stats }, 'demo data backfilled for the last hour');
    }
    const stats = await live(gen, sender, controller.signal, (err) => log.warn({ err: String(err) }, 'demo write failed'));
    log.info(stats, 'demo generator stopped');
  })().catch((err: unknown) => log.error({ err: String(err) }, 'demo generator failed'));
  log.info({ org: org.id }, empty ? 'demo generator started (backfilling the last hour)' : 'demo generator started');
  return async () => {
    controller.abort();
    await running;
    await admin.revokeKey(record.id);
  };
}
