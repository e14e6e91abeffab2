import { partialListingWarnings } from '../../../catalog/partialListing.js';
import type { MetaStore } from '../../../meta/types.js';
import type { Driver } from '../../driver.js';
import { tableDriver } from '../../tableDriver.js';
import type { TelemetryAccess } from './access.js';
import { catalogTools } from './catalogTools.js';
import { checkTools } from './checkTools.js';
import { dashboardTools } from './dashboardTools.js';
import { investigateTools } from './investigateTools.js';
import { TELEMETRY_PROMPTS } from './prompts.js';
import { queryTools } from './queryTools.js';

/**
 * telemetryDriver serves the org's own logs and metrics: find what exists, query it with
 * PromQL and LogQL, check queries, and investigate errors. Every tool reads through the same
 * planner and workers as the query API, within the org's concurrency slots; the dashboard tool
 * reads the org's stored dashboards from `store` to run a panel as a viewer sees it.
 */
export function telemetryDriver(access: TelemetryAccess, store: MetaStore): Driver {
  return tableDriver({
    name: 'telemetry',
    description:
      "Sluice telemetry: the org's logs (LogQL) and metrics (PromQL). Start with list_services or error_overview, find names with list_labels and find_metrics, then query_metrics / query_logs; log_patterns summarises many lines.",
    enabledByDefault: true,
    tools: [...investigateTools(access), ...catalogTools(access), ...queryTools(access), ...dashboardTools(access, store), ...checkTools(access)],
    prompts: TELEMETRY_PROMPTS,
    // Listing tools read synchronously: on a query process the org's heads are fetched first,
    // and holders that could not be read are reported with the result.
    prepare: async (ctx) => partialListingWarnings(await access.storage.refreshListings(ctx.orgId)),
  });
}

export { TelemetryAccess, type TelemetryAccessDeps } from './access.js';
