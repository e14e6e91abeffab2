import { describe, expect, it } from 'vitest';
import { ALL_FEATURES_ON, parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { selectionsFor, type WindowContext } from '../../../engine/query/promqlPlan.js';

/**
 * The planner's data ranges for the experimental syntax: ranges that read step() or range()
 * and smoothed selectors must fetch at least what the evaluator reads.
 */

const ctx: WindowContext = { queryStartMs: 0, queryEndMs: 3_600_000, lookbackMs: 300_000, defaultSubqueryStepMs: 60_000 };
const plan = (q: string) => selectionsFor(parseAndCheckPromQL(q, ALL_FEATURES_ON), 0, 3_600_000, ctx);

describe('planning experimental PromQL', () => {
  it('covers a range written with step() or range() for any step up to the query range', () => {
    const [sel] = plan('rate(x[step()*2])');
    // step() may be as long as the query range: two of it back from the start, plus lookback.
    expect(sel.minMs).toBeLessThanOrEqual(-2 * 3_600_000 - 300_000);
    expect(sel.maxMs).toBe(3_600_000);
    expect(plan('rate(x[range()])')[0].minMs).toBeLessThanOrEqual(-3_600_000);
  });

  it('covers an offset into the future written with step()', () => {
    expect(plan('x offset -step()')[0].maxMs).toBeGreaterThanOrEqual(2 * 3_600_000);
  });

  it('reads a lookback delta past the window for smoothed selectors', () => {
    expect(plan('rate(x[5m] smoothed)')[0].maxMs).toBe(3_600_000 + 300_000);
    expect(plan('x smoothed')[0].maxMs).toBe(3_600_000 + 300_000);
    expect(plan('rate(x[5m] anchored)')[0]).toMatchObject({ minMs: -300_000 - 300_000, maxMs: 3_600_000 });
  });
});
