/**
 * Selectors whose native histograms are read only for their count and sum. Prometheus reads
 * such selectors through a statistics iterator (it skips decoding the buckets), and that
 * iterator works out counter resets itself: a sample whose stored hint is "unknown" (every
 * chunk's first sample, see engine/histogram/storedHints.ts) gets "reset" or "no reset" against
 * the sample read before it. The hints decide the "conflicting counter resets" warning of sum
 * and avg, so to warn where Prometheus warns we mark the same selectors, by the same walk up
 * each selector's path, and give their samples the same hints (see statsHinted).
 */
import { childrenOf, type Expr, type VectorSelector } from '../ast.js';
import { CounterResetHint, detectReset, type FloatHistogram } from '../../histogram/floatHistogram.js';

/** STATS_FUNCTIONS need only a histogram's count and sum. */
const STATS_FUNCTIONS = new Set(['histogram_count', 'histogram_sum', 'histogram_avg']);
/** BUCKET_FUNCTIONS need the buckets, whatever lies below them. */
const BUCKET_FUNCTIONS = new Set(['histogram_quantile', 'histogram_quantiles', 'histogram_fraction']);

/**
 * statsOnlySelectors returns the vector selectors (also those inside range selectors) read only
 * for count and sum: the nearest deciding ancestor is histogram_count, histogram_sum or
 * histogram_avg, and no subquery, bucket-reading function or trim operator (`</`, `>/`) sits
 * between the selector and the outermost such call or above it.
 */
export function statsOnlySelectors(root: Expr): ReadonlySet<VectorSelector> {
  const marked = new Set<VectorSelector>();
  const path: Expr[] = [];
  const visit = (node: Expr): void => {
    if (node.type === 'VectorSelector') {
      if (readsStatsOnly(path)) marked.add(node);
      return;
    }
    path.push(node);
    for (const child of childrenOf(node)) visit(child);
    path.pop();
  };
  visit(root);
  return marked;
}

/** readsStatsOnly walks a selector's ancestors from the nearest up, as Prometheus does. */
function readsStatsOnly(path: readonly Expr[]): boolean {
  let statsOnly = false;
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i];
    if (p.type === 'SubqueryExpr') return false;
    if (p.type === 'BinaryExpr' && (p.op === '</' || p.op === '>/')) return false;
    if (p.type === 'Call') {
      if (BUCKET_FUNCTIONS.has(p.func.name)) return false;
      if (STATS_FUNCTIONS.has(p.func.name)) statsOnly = true;
    }
  }
  return statsOnly;
}

/**
 * statsHinted gives a series' histograms the hints the statistics iterator reports: an unknown
 * hint right after another histogram sample becomes "reset" or "no reset" against it. Samples
 * after a float or a staleness marker (undefined slots) keep their hint. Returns the input
 * when nothing changes; never modifies it (storage may share its arrays).
 */
export function statsHinted(hists: readonly (FloatHistogram | undefined)[]): readonly (FloatHistogram | undefined)[] {
  let out: (FloatHistogram | undefined)[] | undefined;
  for (let i = 1; i < hists.length; i++) {
    const h = hists[i];
    const prev = hists[i - 1];
    if (h === undefined || prev === undefined || h.counterResetHint !== CounterResetHint.Unknown) continue;
    const hint = detectReset(h, prev) ? CounterResetHint.CounterReset : CounterResetHint.NotCounterReset;
    (out ??= hists.slice())[i] = { ...h, counterResetHint: hint };
  }
  return out ?? hists;
}
