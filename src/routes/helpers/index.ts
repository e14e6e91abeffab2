import type { Storage } from '../../../engine/index.js';
import type { RouteSpec } from '../../http/router.js';
import { logHelperRoutes } from './logs.js';
import { metricHelperRoutes } from './metrics.js';
import { openApiRoutes } from './openapi.js';
import { serviceRoutes } from './services.js';

/** HelperDeps is what the helper endpoints read from. */
export interface HelperDeps {
  storage: Storage;
  /** openApi is the document's bytes when the caller has read them already. */
  openApi?: Buffer;
}

/**
 * helperRoutes gathers the listing endpoints (log tags, metric labels, metadata, services)
 * and the OpenAPI document that describes every route.
 */
export function helperRoutes(deps: HelperDeps): RouteSpec[] {
  return [...logHelperRoutes(deps.storage), ...metricHelperRoutes(deps.storage), ...serviceRoutes(deps.storage), ...openApiRoutes(deps.openApi)];
}

