import type { OrgQueryLimits } from '../meta/orgSettingsView.js';
import type { RetentionSignal } from '../meta/orgSettings.js';
import type { PlanDeps } from './plans.js';

/**
 * Queries run under the limits of the org that asks: the service builds its query paths with
 * `queryLimitsFor`, and each request reads its org's values once, at its start, so a limit
 * changed on a running server applies from the next query on.
 */
export type QueryLimitsFor = (org: string) => OrgQueryLimits;

/**
 * orgPlanDeps gives a query's plan the org's bounds in place of the service's, and the oldest
 * instant its data may come from: the org's retention for `signal` before `nowMs`, so a query
 * never returns what retention is about to delete (or would have deleted, had it run).
 */
export function orgPlanDeps<D extends PlanDeps & { maxSeries?: number }>(deps: D, limits: OrgQueryLimits, signal: RetentionSignal, nowMs = Date.now()): D {
  const retentionMs = limits.retentionMs[signal];
  const own = {
    maxSamples: limits.maxSamples,
    memoryBytes: limits.memoryBytes,
    maxSeries: limits.maxSeries,
    oldestMs: retentionMs > 0 ? nowMs - retentionMs : undefined,
  };
  return { ...deps, ...own };
}
