import type { ServiceMetrics } from '../metrics.js';
import type { QueryLimitsFor } from './orgQueryLimits.js';
import type { PlanDeps } from './plans.js';
import type { ResultsCacheDeps } from './metricSource.js';
import type { OrgQueryLimits } from '../meta/orgSettingsView.js';
import type { OrgGate, QuerySlot, QueryStreamOptions } from './stream.js';

/**
 * What both streaming query endpoints (metrics and logs) are given by the service, and what
 * they say to a caller without an org: kept apart from either endpoint so neither borrows
 * from the other.
 */
export interface QueryDeps extends PlanDeps, ResultsCacheDeps {
  metrics: ServiceMetrics;
  gate: OrgGate;
  /** queryLimitsFor gives the limits of the org that asks: concurrency, budgets, deadline, retention. */
  queryLimitsFor: QueryLimitsFor;
  heartbeatMs: number;
  stallTimeoutMs: number;
  defaultMaxDataPoints: number;
  maxPointsPerSeries: number;
}

/** QUERY_NEEDS_ORG is the FORBIDDEN message of a query made with the system key. */
export const QUERY_NEEDS_ORG = 'queries need an org API key; the system key has no org';

/** OrgStreamOptions are the options of a query's stream that the service and the org's limits set. */
export type OrgStreamOptions = Pick<QueryStreamOptions, 'heartbeatMs' | 'timeoutMs' | 'timeoutOrigin' | 'stallTimeoutMs' | 'memoryBytes' | 'metrics' | 'release' | 'evaluation'>;

/** orgStreamOptions gives every endpoint's stream the same deadline, stall timeout, budget and slot release. */
export function orgStreamOptions(deps: QueryDeps, limits: OrgQueryLimits, release: QuerySlot): OrgStreamOptions {
  return {
    heartbeatMs: deps.heartbeatMs,
    timeoutMs: limits.timeoutMs,
    timeoutOrigin: limits.originOf('timeoutMs'),
    stallTimeoutMs: deps.stallTimeoutMs,
    memoryBytes: limits.memoryBytes,
    metrics: deps.metrics,
    release,
    evaluation: release.evaluation,
  };
}

/**
 * holdingSlot builds what will own a query's slots (its source and stream) once they are
 * taken. Until the stream exists nothing frees them at the end of the query, so when building
 * throws (a plan that cannot be made, a source that refuses the query) the slots are freed
 * here; otherwise the org would lose a slot, and admission an evaluation slot, for good.
 */
export function holdingSlot<T>(slot: QuerySlot, build: () => T): T {
  try {
    return build();
  } catch (err) {
    slot();
    throw err;
  }
}
