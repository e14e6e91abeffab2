/**
 * info(v, {data label matchers}): Prometheus' experimental join of a vector with the "info"
 * series (target_info by default) that share its identifying labels (instance, job), adding
 * the info series' data labels. The info series are read at the base expression's evaluation
 * time (its first selector's `@` and offset, through enclosing subqueries); where two info
 * series of one metric claim the same identity, the one with the later sample wins.
 */
import type { Call, Expr, LabelMatcher, VectorSelector } from '../ast.js';
import { compileMatcher, type ValueTest } from '../../storage/matchers.js';
import { sortLabels } from '../../storage/labels.js';
import { evalError, type EvalContext } from './context.js';
import { DUPLICATE_LABELSET } from './dedupe.js';
import { type StepGrid } from './grid.js';
import { formatLabelsGo, labelsKey, METRIC_NAME, type Labels } from './labelset.js';
import { resolveAt, selectInstant } from './selectors.js';
import { materialize, type VectorSeries } from './series.js';
import type { NodeEvaluator, Value } from './value.js';

const TARGET_INFO = 'target_info';
const IDENTIFYING_LABELS = ['instance', 'job'] as const;

/** NameMatcher is a compiled `__name__` matcher. */
interface NameMatcher {
  matcher: LabelMatcher;
  test: ValueTest;
}

function compileName(matcher: LabelMatcher): NameMatcher {
  return { matcher, test: compileMatcher({ name: matcher.name, type: matcher.op, value: matcher.value }) };
}

/**
 * effectiveNameMatchers is how the info metrics are chosen: the name matchers given when one
 * of them selects positively, otherwise `.+_info` narrowed by the negative ones, or target_info
 * when none were given.
 */
function effectiveNameMatchers(matchers: readonly LabelMatcher[]): LabelMatcher[] {
  if (matchers.some((m) => m.op === '=' || m.op === '=~')) return [...matchers];
  if (matchers.length > 0) return [{ name: METRIC_NAME, op: '=~', value: '.+_info' }, ...matchers];
  return [{ name: METRIC_NAME, op: '=', value: TARGET_INFO }];
}

/** quoteMeta escapes regex syntax, as Go's regexp.QuoteMeta does. */
function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** infoTime finds the `@` and offset that apply to the first selector of the base expression. */
function infoTime(expr: Expr): { at: VectorSelector['at']; offsetMs: number } {
  const path: Expr[] = [];
  const find = (node: Expr): VectorSelector | null => {
    if (node.type === 'VectorSelector') return node;
    path.push(node);
    const children: Expr[] =
      node.type === 'MatrixSelector'
        ? [node.selector]
        : node.type === 'SubqueryExpr' || node.type === 'ParenExpr' || node.type === 'UnaryExpr'
          ? [node.expr]
          : node.type === 'AggregateExpr'
            ? node.param === null
              ? [node.expr]
              : [node.param, node.expr]
            : node.type === 'BinaryExpr'
              ? [node.lhs, node.rhs]
              : node.type === 'Call'
                ? node.args
                : [];
    for (const child of children) {
      const found = find(child);
      if (found !== null) return found;
    }
    path.pop();
    return null;
  };
  const vs = find(expr);
  if (vs === null) return { at: null, offsetMs: 0 };
  let at = vs.at;
  let offsetMs = vs.offsetMs;
  for (let i = path.length - 1; at === null && i >= 0; i--) {
    const node = path[i];
    if (node.type === 'SubqueryExpr') {
      offsetMs += node.offsetMs;
      at = node.at;
    }
  }
  return { at, offsetMs };
}

/** identity is the join key of a series for info metric `name`: the name and identifying labels. */
function identity(name: string, labels: Labels): string {
  let key = name;
  for (const l of IDENTIFYING_LABELS) if (labels[l] !== undefined && labels[l] !== '') key += `\u0000${l}=${labels[l]}`;
  return key;
}

/** evalInfo evaluates info(). */
export function evalInfo(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): Value {
  const ctx = ev.ctx;
  const base = materialize(ev.evalMixedVector(args[0], grid));
  const given: LabelMatcher[] = args.length > 1 ? (args[1] as VectorSelector).matchers : [];
  const nameMatchers = args.length > 1 ? given.filter((m) => m.name === METRIC_NAME) : [{ name: METRIC_NAME, op: '=' as const, value: TARGET_INFO }];
  const effective = effectiveNameMatchers(nameMatchers).map(compileName);
  /** dataMatchers are the data label matchers, by label name. */
  const dataMatchers = new Map<string, ValueTest[]>();
  for (const m of given) {
    if (m.name === METRIC_NAME) continue;
    const list = dataMatchers.get(m.name) ?? [];
    list.push(compileMatcher({ name: m.name, type: m.op, value: m.value }));
    dataMatchers.set(m.name, list);
  }
  const ignored = base.map((s) => effective.every((m) => m.test(s.labels[METRIC_NAME] ?? '')));
  const infoSeries = fetchInfoSeries(ctx, args[0], base, ignored, given, grid);
  return { kind: 'vector', series: combine(ctx, base, ignored, infoSeries, dataMatchers, grid.count) };
}

/**
 * fetchInfoSeries selects the info series that can join the base series, each valued at every
 * step with the time (ms) of the sample found there.
 */
function fetchInfoSeries(ctx: EvalContext, baseExpr: Expr, base: VectorSeries[], ignored: boolean[], given: readonly LabelMatcher[], grid: StepGrid): VectorSeries[] {
  const values = new Map<string, Set<string>>();
  base.forEach((s, i) => {
    if (ignored[i]) return;
    for (const l of IDENTIFYING_LABELS) {
      const v = s.labels[l];
      if (v === undefined || v === '') continue;
      let set = values.get(l);
      if (set === undefined) values.set(l, (set = new Set()));
      set.add(v);
    }
  });
  if (values.size === 0) return [];
  const matchers: LabelMatcher[] = [];
  for (const [name, set] of values) matchers.push({ name, op: '=~', value: [...set].map(quoteMeta).join('|') });
  const names: LabelMatcher[] = [];
  for (const m of given) (m.name === METRIC_NAME ? names : matchers).push(m);
  matchers.push(...effectiveNameMatchers(names));
  const time = infoTime(baseExpr);
  const selector: VectorSelector = {
    type: 'VectorSelector',
    name: null,
    matchers,
    offsetMs: time.offsetMs,
    at: time.at === null ? null : { kind: 'timestamp', ms: resolveAt(ctx, time.at) },
    pos: baseExpr.pos,
    valueType: 'vector',
  };
  for (const s of selectInstant(ctx, selector, grid)) {
    if (s.histograms?.some((h) => h !== undefined)) throw evalError('info sample should be float');
  }
  return materialize(selectInstant(ctx, selector, grid, true));
}

/** combine joins the base series with the info series step by step. */
function combine(
  ctx: EvalContext,
  base: VectorSeries[],
  ignored: boolean[],
  info: VectorSeries[],
  dataMatchers: ReadonlyMap<string, ValueTest[]>,
  count: number,
): VectorSeries[] {
  const infoNames = [...new Set(info.map((s) => s.labels[METRIC_NAME] ?? ''))];
  const infoKeys = info.map((s) => identity(s.labels[METRIC_NAME] ?? '', s.labels));
  const baseKeys = base.map((s) => infoNames.map((name) => identity(name, s.labels)));
  const emptyAccepted = [...dataMatchers.values()].every((tests) => tests.every((t) => t('')));
  const outputs = new Map<string, VectorSeries>();
  const latest = new Map<string, number>();
  for (let step = 0; step < count; step++) {
    ctx.checkAbort();
    latest.clear();
    for (let k = 0; k < info.length; k++) {
      if (info[k].present[step] === 0) continue;
      const prior = latest.get(infoKeys[k]);
      if (prior === undefined) {
        latest.set(infoKeys[k], k);
        continue;
      }
      const priorT = info[prior].values[step];
      const t = info[k].values[step];
      if (t > priorT) latest.set(infoKeys[k], k);
      else if (t === priorT) {
        throw evalError(
          `found duplicate series for info metric: existing ${formatLabelsGo(info[prior].labels)} @ ${Math.round(priorT * 1000)}, new ${formatLabelsGo(info[k].labels)} @ ${Math.round(t * 1000)}`,
        );
      }
    }
    for (let b = 0; b < base.length; b++) {
      const s = base[b];
      if (s.present[step] === 0) continue;
      let labels = s.labels;
      if (!ignored[b]) {
        const added: Record<string, string> = {};
        let joined = 0;
        for (let n = 0; n < infoNames.length; n++) {
          const k = latest.get(baseKeys[b][n]);
          if (k === undefined) continue;
          joined++;
          const infoLabels = info[k].labels;
          for (const name in infoLabels) {
            if (name === METRIC_NAME) continue;
            if (dataMatchers.size > 0 && !dataMatchers.has(name)) continue;
            const value = infoLabels[name];
            const prior = added[name];
            if (prior !== undefined && prior !== value) throw evalError(`conflicting label: ${name}`);
            if (s.labels[name] !== undefined) continue;
            added[name] = value;
          }
        }
        if (joined === 0 && !emptyAccepted) continue;
        if (joined > 0) labels = sortLabels({ ...s.labels, ...added });
      }
      const key = labelsKey(labels);
      let out = outputs.get(key);
      if (out === undefined) {
        out = { labels, values: new Float64Array(count), present: new Uint8Array(count), dropName: s.dropName };
        outputs.set(key, out);
      }
      if (out.present[step] !== 0) throw evalError(DUPLICATE_LABELSET);
      out.present[step] = 1;
      out.values[step] = s.values[step];
      const h = s.histograms?.[step];
      if (h !== undefined) (out.histograms ??= new Array(count))[step] = h;
    }
  }
  return [...outputs.values()];
}
