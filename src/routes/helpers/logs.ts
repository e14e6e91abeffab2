import type { Storage } from '../../../engine/index.js';
import type { RouteSpec } from '../../http/router.js';
import { listKeys, listLabelSets, listValues, logTagScan, type LabelSetScan } from '../../catalog/labelListings.js';
import { msToNs } from '../../catalog/listing.js';
import { listingRoute, requireString, type HelperScope } from './request.js';
import { parseStreamSelector } from '../../catalog/selectors.js';

/**
 * Log helper endpoints list what a LogQL stream selector can match: tag keys, the values of
 * one key, and whole tag sets. Tags are the ones a query result carries (indexed tags,
 * attributes and `level`), so whatever is listed here can be used in a selector. Scans read
 * tag sets only, never messages.
 */

/** logHelperRoutes builds the three log listing routes over the org's log tag sets. */
export function logHelperRoutes(storage: Storage): RouteSpec[] {
  const scanOf = (scope: HelperScope): LabelSetScan => logTagScan(storage, scope.org, msToNs(scope.startMs), msToNs(scope.endMs));
  const route = (path: string, answer: (scope: HelperScope) => object): RouteSpec => listingRoute(path, parseStreamSelector, answer, (org) => storage.refreshListings(org));
  return [
    route('/api/v1/logs/tags', (scope) => listKeys(scanOf(scope), scope.matchers, scope.limit)),
    route('/api/v1/logs/tagvalues', (scope) => {
      const key = requireString(scope.body, 'key', 'the tag whose values to list');
      return listValues(scanOf(scope), scope.matchers, key, scope.limit);
    }),
    route('/api/v1/logs/series', (scope) => listLabelSets(scanOf(scope), scope.matchers, scope.limit)),
  ];
}
