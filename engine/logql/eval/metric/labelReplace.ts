/**
 * label_replace(v, dst, replacement, src, regex): for each series whose `src` value matches
 * the anchored regex, set `dst` to the expanded replacement (an empty result removes it).
 * Series keep their points; two series that end up with equal labels merge, later steps
 * winning, as Loki's step-wise result assembly does.
 */
import type { LabelReplaceExpr } from '../../ast.js';
import { compileRegex } from '../../../regex/index.js';
import type { EvalContext } from '../context.js';
import { labelValue, setLabel } from '../labelSet.js';
import type { ResultLabels } from '../labelsBuilder.js';
import { newSeries, type StepMatrix } from './stepMatrix.js';
import type { StepSeries } from '../../../common/stepSeries.js';

/** evaluateLabelReplace rewrites the labels of `input`. */
export function evaluateLabelReplace(ctx: EvalContext, expr: LabelReplaceExpr, input: StepMatrix): StepMatrix {
  const re = compileRegex(expr.regex, { anchored: true });
  const out = new Map<string, StepSeries<ResultLabels>>();
  for (const s of input.series) {
    const labels = s.labels.labels;
    const src = labelValue(labels, expr.src) ?? '';
    const m = re.execIndices(src);
    let target: ResultLabels = s.labels;
    if (m !== null) {
      const value = re.expand(expr.replacement, src, m);
      const next: Record<string, string> = { ...labels };
      delete next[expr.dst];
      if (value !== '') setLabel(next, expr.dst, value);
      const names = Object.keys(next).sort();
      target = ctx.labelCache.intern(
        names,
        names.map((n) => next[n]),
      );
    }
    const existing = out.get(target.key);
    if (existing === undefined) {
      out.set(target.key, target === s.labels ? s : { labels: target, values: s.values, present: s.present });
      continue;
    }
    const merged = existing.labels === s.labels ? existing : newSeries(target, s.values.length);
    if (merged !== existing) {
      merged.values.set(existing.values);
      merged.present.set(existing.present);
      out.set(target.key, merged);
    }
    for (let j = 0; j < s.values.length; j++) {
      if (s.present[j] !== 1) continue;
      merged.values[j] = s.values[j];
      merged.present[j] = 1;
    }
  }
  return { kind: 'matrix', series: [...out.values()] };
}
