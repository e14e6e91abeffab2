import type { Expr, VectorSelector } from '../promql/ast.js';
import { hasQueryDurations, resolveDurations } from '../promql/durationExpr.js';
import type { LabelMatcher } from '../storage/matchers.js';

/**
 * Selection is one selector's data need for an evaluation window: which series, and the
 * time range of samples the evaluator may read. The planner fetches exactly these before a
 * slice is shipped to a worker, so a worker never needs the whole store.
 */
export interface Selection {
  matchers: LabelMatcher[];
  minMs: number;
  maxMs: number;
}

export interface WindowContext {
  /** queryStartMs and queryEndMs are what `@ start()` and `@ end()` refer to. */
  queryStartMs: number;
  queryEndMs: number;
  lookbackMs: number;
  /** defaultSubqueryStepMs is the step of a subquery written without one. */
  defaultSubqueryStepMs: number;
}

function atTime(at: { kind: 'timestamp'; ms: number } | { kind: 'start' } | { kind: 'end' }, ctx: WindowContext): number {
  return at.kind === 'timestamp' ? at.ms : at.kind === 'start' ? ctx.queryStartMs : ctx.queryEndMs;
}

function matchersOf(sel: VectorSelector): LabelMatcher[] {
  return sel.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
}

/**
 * selectionsFor walks `expr` as evaluated over [startMs, endMs] and returns every selector with
 * the sample range it can touch: offsets shift the window, `@` pins it, ranges and the lookback
 * widen it, and a subquery evaluates its inner expression over its own range (plus one step of
 * alignment slack). Over-fetching a little is harmless; missing a sample is not.
 */
export function selectionsFor(expr: Expr, startMs: number, endMs: number, ctx: WindowContext): Selection[] {
  if (!hasQueryDurations(expr)) return selectionsOf(expr, startMs, endMs, ctx);
  // Ranges and offsets that read step() or range() are known only per query: the selections
  // are taken for step() at 0 and at the query's range (the largest useful step) and merged,
  // since over-fetching is harmless.
  const rangeMs = ctx.queryEndMs - ctx.queryStartMs;
  const variants: Selection[][] = [];
  for (const stepMs of [0, rangeMs]) {
    try {
      variants.push(selectionsOf(resolveDurations(expr, { stepMs, rangeMs }), startMs, endMs, ctx));
    } catch {
      // A value that is invalid for this step (a range of 0) says nothing about the data needed.
    }
  }
  if (variants.length === 0) return selectionsOf(expr, startMs, endMs, ctx);
  return variants[0].map((s, i) => {
    const other = variants[variants.length - 1][i];
    return { matchers: s.matchers, minMs: Math.min(s.minMs, other.minMs), maxMs: Math.max(s.maxMs, other.maxMs) };
  });
}

/** selectionsOf walks a tree whose durations are all known. */
function selectionsOf(expr: Expr, startMs: number, endMs: number, ctx: WindowContext): Selection[] {
  const out: Selection[] = [];
  const visit = (node: Expr, s: number, e: number): void => {
    switch (node.type) {
      case 'VectorSelector': {
        const [from, to] = node.at ? [atTime(node.at, ctx), atTime(node.at, ctx)] : [s, e];
        // A smoothed selector also reads a lookback delta past each step.
        const after = node.smoothed === true ? ctx.lookbackMs : 0;
        out.push({ matchers: matchersOf(node), minMs: from - node.offsetMs - ctx.lookbackMs, maxMs: to - node.offsetMs + after });
        return;
      }
      case 'MatrixSelector': {
        const sel = node.selector;
        const [from, to] = sel.at ? [atTime(sel.at, ctx), atTime(sel.at, ctx)] : [s, e];
        // anchored and smoothed windows read a lookback delta before (already covered) and, smoothed, after.
        const after = sel.smoothed === true ? ctx.lookbackMs : 0;
        out.push({ matchers: matchersOf(sel), minMs: from - sel.offsetMs - node.rangeMs - ctx.lookbackMs, maxMs: to - sel.offsetMs + after });
        return;
      }
      case 'SubqueryExpr': {
        const [from, to] = node.at ? [atTime(node.at, ctx), atTime(node.at, ctx)] : [s, e];
        const step = node.stepMs ?? ctx.defaultSubqueryStepMs;
        visit(node.expr, from - node.offsetMs - node.rangeMs - step, to - node.offsetMs);
        return;
      }
      default:
        for (const child of childrenOfAny(node)) visit(child, s, e);
    }
  };
  visit(expr, startMs, endMs);
  return out;
}

/** childrenOfAny lists sub-expressions generically, so new node kinds are walked without changes here. */
function childrenOfAny(node: Expr): Expr[] {
  const kids: Expr[] = [];
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const v of value) if (isExpr(v)) kids.push(v);
    } else if (isExpr(value)) {
      kids.push(value);
    }
  }
  return kids;
}

function isExpr(value: unknown): value is Expr {
  return typeof value === 'object' && value !== null && 'type' in value && 'pos' in value && 'valueType' in value;
}

/**
 * refersToQueryWindow tells whether the query uses `@ start()` or `@ end()`, or calls a function
 * that reads the query's window (`readsQueryWindow` in the function table: start(), end(),
 * range()); such a query cannot be cut into time slices, because each slice would resolve them
 * to its own bounds.
 */
export function refersToQueryWindow(expr: Expr): boolean {
  return someNode(expr, (node) => {
    if ((node.type === 'VectorSelector' || node.type === 'SubqueryExpr') && node.at && node.at.kind !== 'timestamp') return true;
    if (node.type === 'MatrixSelector' && node.selector.at && node.selector.at.kind !== 'timestamp') return true;
    return node.type === 'Call' && node.func.readsQueryWindow;
  });
}

/**
 * costsAboutItsSamples tells whether evaluating the query costs about the samples it reads plus
 * a visit per series and step: no subquery (its inner expression runs at each of its own steps)
 * and, over a range, no range function whose work grows with its window
 * (FunctionDef.costGrowsWithWindow; an instant query has one window per series, read once).
 * Every other window kernel slides from one step's window to the next at a constant cost per
 * sample, so overlapping windows do not multiply the work.
 */
export function costsAboutItsSamples(expr: Expr, instant: boolean): boolean {
  return !someNode(expr, (node) => node.type === 'SubqueryExpr' || (!instant && node.type === 'Call' && node.func.costGrowsWithWindow));
}

/**
 * resultsCacheable tells whether the value of `expr` at a step depends only on that step's time
 * and the stored data, so that pieces evaluated over different windows (with the same step and
 * step phase) join into the answer a single evaluation gives. It refuses every `@` modifier
 * (`@ start()`/`@ end()` move with the window; a fixed `@ t` reads data around t whatever the
 * step, which the cache's data-range bookkeeping does not follow) and the functions that read
 * the query window. Evaluation time (time(), timestamp(), the date functions) is a property of
 * the step itself and is fine; subqueries align to absolute multiples of their step. Ranges,
 * steps and offsets written as duration expressions are refused too: `range()` in them is the
 * whole query's range, which differs between the pieces the cache joins, and what `step()`
 * makes them read is not known to dataReach before the query's step is.
 */
export function resultsCacheable(expr: Expr): boolean {
  if (refersToQueryWindow(expr) || hasQueryDurations(expr)) return false;
  return !someNode(expr, (node) => {
    if (node.type === 'VectorSelector' || node.type === 'SubqueryExpr') return node.at !== null;
    if (node.type === 'MatrixSelector') return node.selector.at !== null;
    return false;
  });
}

/**
 * dataReach is how far before and after a step's time the evaluation of `expr` may read samples
 * (lookback, ranges, offsets, subquery ranges), for an expression without `@`: the samples
 * behind step t lie within [t - before, t + after]. `after` is positive only with negative
 * offsets. A query without selectors reads nothing: both are 0 and `reads` is false.
 */
export function dataReach(expr: Expr, lookbackMs: number, defaultSubqueryStepMs: number): { before: number; after: number; reads: boolean } {
  const selections = selectionsFor(expr, 0, 0, { queryStartMs: 0, queryEndMs: 0, lookbackMs, defaultSubqueryStepMs });
  if (selections.length === 0) return { before: 0, after: 0, reads: false };
  let before = 0;
  let after = 0;
  for (const s of selections) {
    before = Math.max(before, -s.minMs);
    after = Math.max(after, s.maxMs);
  }
  return { before, after, reads: true };
}

/** someNode tells whether any node of the tree satisfies `test`. */
function someNode(expr: Expr, test: (node: Expr) => boolean): boolean {
  let found = false;
  const visit = (node: Expr): void => {
    if (found) return;
    if (test(node)) {
      found = true;
      return;
    }
    for (const child of childrenOfAny(node)) visit(child);
  };
  visit(expr);
  return found;
}

/**
 * planSlices cuts the steps of a range query into contiguous, step-aligned slices so that
 * workers evaluate them independently; each slice has at least `minStepsPerSlice` steps so the
 * per-task overhead stays small, and there are at most `maxSlices`.
 */
export function planSlices(startMs: number, endMs: number, stepMs: number, maxSlices: number, minStepsPerSlice: number): Array<{ startMs: number; endMs: number }> {
  const steps = Math.floor((endMs - startMs) / stepMs) + 1;
  const count = Math.max(1, Math.min(maxSlices, Math.floor(steps / minStepsPerSlice)));
  const per = Math.ceil(steps / count);
  const slices: Array<{ startMs: number; endMs: number }> = [];
  for (let first = 0; first < steps; first += per) {
    const last = Math.min(steps - 1, first + per - 1);
    slices.push({ startMs: startMs + first * stepMs, endMs: startMs + last * stepMs });
  }
  return slices;
}
