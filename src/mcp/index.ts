import type { Storage } from '../../engine/index.js';
import type { RouteSpec } from '../http/router.js';
import type { MetaStore } from '../meta/types.js';
import type { QueryCollector } from '../query/collect.js';
import type { WindowLimits } from '../query/timeRange.js';
import { commonDriver } from './drivers/common.js';
import { kubeDriver } from './drivers/kube/index.js';
import { TelemetryAccess, telemetryDriver } from './drivers/telemetry/index.js';
import { UPSTREAM_KINDS, upstreamDriver } from './drivers/upstream.js';
import { ToolGateway } from './gateway.js';
import { gatewayRoutes } from './routes.js';

export interface ToolGatewayDeps {
  store: MetaStore;
  storage: Storage;
  collector: QueryCollector;
  windowLimits: WindowLimits;
  callTimeoutMs: number;
  upstreamTimeoutMs: number;
}

/** MAX_TOOL_SERIES and MAX_TOOL_LOG_ROWS bound what one tool query holds, before any output budget. */
const MAX_TOOL_SERIES = 10_000;
const MAX_TOOL_LOG_ROWS = 20_000;

/**
 * toolGatewayRoutes assembles the tool gateway: telemetry and common over this installation's
 * data, kube over the clusters an org configured, and forwarding drivers for the products
 * that ship their own MCP servers.
 */
export function toolGatewayRoutes(deps: ToolGatewayDeps): { routes: RouteSpec[]; gateway: ToolGateway } {
  const access = new TelemetryAccess({
    storage: deps.storage,
    collector: deps.collector,
    windowLimits: deps.windowLimits,
    maxSeries: MAX_TOOL_SERIES,
    maxLogRows: MAX_TOOL_LOG_ROWS,
  });
  const gateway = new ToolGateway(deps.store, [
    telemetryDriver(access, deps.store),
    commonDriver(access),
    kubeDriver(),
    ...UPSTREAM_KINDS.map((kind) => upstreamDriver(kind, { timeoutMs: deps.upstreamTimeoutMs })),
  ]);
  return { routes: gatewayRoutes({ store: deps.store, gateway, callTimeoutMs: deps.callTimeoutMs }), gateway };
}
