import type { LabelMatcher, Storage } from '../../../engine/index.js';
import type { RequestContext, RouteSpec } from '../../http/router.js';
import { listKeys, listLabelSets, listValues, logTagScan, type LabelSetScan } from '../../catalog/labelListings.js';
import { msToNs } from '../../catalog/listing.js';
import { helperLimit, helperWindow, matchersFrom, readHelperBody, requireOrg, requireString } from './request.js';
import { parseStreamSelector } from '../../catalog/selectors.js';

/**
 * Log helper endpoints list what a LogQL stream selector can match: tag keys, the values of
 * one key, and whole tag sets. Tags are the ones a query result carries (indexed tags,
 * attributes and `level`), so whatever is listed here can be used in a selector. Scans read
 * tag sets only, never messages.
 */

/** LogScope is a parsed log helper request. */
interface LogScope {
  org: string;
  matchers: LabelMatcher[];
  minNs: bigint;
  maxNs: bigint;
  limit: number;
  body: Record<string, unknown>;
}

/** logScope reads what every log helper needs: org, window (in ns), limit and the optional selector. */
function logScope(ctx: RequestContext): LogScope {
  const org = requireOrg(ctx);
  const body = readHelperBody(ctx);
  const { startMs, endMs } = helperWindow(body);
  const limit = helperLimit(body.limit);
  const matchers = matchersFrom(body, parseStreamSelector);
  return { org, matchers, minNs: msToNs(startMs), maxNs: msToNs(endMs), limit, body };
}

/** logHelperRoutes builds the three log listing routes over the org's log tag sets. */
export function logHelperRoutes(storage: Storage): RouteSpec[] {
  const scanOf = (scope: LogScope): LabelSetScan => logTagScan(storage, scope.org, scope.minNs, scope.maxNs);
  const route = (path: string, answer: (scope: LogScope) => unknown): RouteSpec => ({
    method: 'POST',
    path,
    auth: 'key',
    body: 'json',
    handler: (ctx) => ctx.res.json(200, answer(logScope(ctx))),
  });
  return [
    route('/api/v1/logs/tags', (scope) => listKeys(scanOf(scope), scope.matchers, scope.limit)),
    route('/api/v1/logs/tagvalues', (scope) => {
      const key = requireString(scope.body, 'key', 'the tag whose values to list');
      return listValues(scanOf(scope), scope.matchers, key, scope.limit);
    }),
    route('/api/v1/logs/series', (scope) => listLabelSets(scanOf(scope), scope.matchers, scope.limit)),
  ];
}
