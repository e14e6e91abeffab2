import type { LabelMatcher, Storage } from '../../../engine/index.js';
import type { RequestContext, RouteSpec } from '../../http/router.js';
import { DistinctLabelSets, DistinctStrings, msToNs } from '../../catalog/listing.js';
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
  return [
    {
      method: 'POST',
      path: '/api/v1/logs/tags',
      auth: 'key',
      body: 'json',
      handler: (ctx) => {
        const scope = logScope(ctx);
        const keys = new DistinctStrings(scope.limit);
        storage.logTagSets(scope.org).forEachTagSet(scope.matchers, scope.minNs, scope.maxNs, (tags) => {
          for (const key in tags) if (!keys.add(key)) return false;
          return true;
        });
        ctx.res.json(200, keys.listing());
      },
    },
    {
      method: 'POST',
      path: '/api/v1/logs/tagvalues',
      auth: 'key',
      body: 'json',
      handler: (ctx) => {
        const scope = logScope(ctx);
        const key = requireString(scope.body, 'key', 'the tag whose values to list');
        const values = new DistinctStrings(scope.limit);
        // Only tag sets carrying the key can contribute a value.
        const matchers: LabelMatcher[] = [...scope.matchers, { name: key, type: '!=', value: '' }];
        storage.logTagSets(scope.org).forEachTagSet(matchers, scope.minNs, scope.maxNs, (tags) => values.add(tags[key]));
        ctx.res.json(200, values.listing());
      },
    },
    {
      method: 'POST',
      path: '/api/v1/logs/series',
      auth: 'key',
      body: 'json',
      handler: (ctx) => {
        const scope = logScope(ctx);
        const sets = new DistinctLabelSets(scope.limit);
        storage.logTagSets(scope.org).forEachTagSet(scope.matchers, scope.minNs, scope.maxNs, (tags) => sets.add(tags));
        ctx.res.json(200, sets.listing());
      },
    },
  ];
}
