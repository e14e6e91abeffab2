/**
 * PromQL feature flags, named as Prometheus names them in `--enable-feature`. A server picks
 * its set once at start-up (SVC_PROMQL_FEATURES); queries parsed without explicit options use
 * it. A flag that is off gives the parse error Prometheus gives without it.
 */
import type { ParseOptions } from './parser.js';

/** PROMQL_FEATURES lists the flags and what each admits. */
export const PROMQL_FEATURES = {
  'promql-experimental-functions': 'experimental functions and aggregations (limitk, limit_ratio, sort_by_label, mad_over_time, info, ...)',
  'promql-duration-expr': 'arithmetic, step(), range(), min_of() and max_of() in ranges, subquery steps and offsets',
  'promql-extended-range-selectors': 'the anchored and smoothed range selector modifiers',
  'promql-binop-fill-modifiers': 'fill(), fill_left() and fill_right() on binary operators',
  'promql-delayed-name-removal': 'keep __name__ through functions and operators that drop it, removing it only from the final result (label_replace and by (__name__) can still read it)',
} as const;

/** PromQLFeature is one flag name. */
export type PromQLFeature = keyof typeof PROMQL_FEATURES;

/** DEFAULT_PROMQL_FEATURES are on unless configured otherwise (duration expressions are always on in Prometheus 3). */
export const DEFAULT_PROMQL_FEATURES: readonly PromQLFeature[] = ['promql-experimental-functions', 'promql-duration-expr'];

/** isPromQLFeature tells whether `name` is a known flag. */
export function isPromQLFeature(name: string): name is PromQLFeature {
  return Object.hasOwn(PROMQL_FEATURES, name);
}

/** parseOptionsFor turns a set of flags into parser options (every option explicit). */
export function parseOptionsFor(features: Iterable<PromQLFeature>): Required<ParseOptions> {
  const on = new Set(features);
  return {
    experimentalFunctions: on.has('promql-experimental-functions'),
    durationExpressions: on.has('promql-duration-expr'),
    extendedRangeSelectors: on.has('promql-extended-range-selectors'),
    binopFillModifiers: on.has('promql-binop-fill-modifiers'),
  };
}

/**
 * delayedNameRemovalOn tells whether evaluation keeps `__name__` until the end. It is no parser
 * option: it changes answers, not what parses, so it travels with each evaluation instead.
 */
export function delayedNameRemovalOn(features: Iterable<PromQLFeature>): boolean {
  return new Set(features).has('promql-delayed-name-removal');
}

/** ALL_FEATURES_ON admits everything: for re-parsing queries already accepted, and for the conformance corpus. */
export const ALL_FEATURES_ON: Required<ParseOptions> = parseOptionsFor(Object.keys(PROMQL_FEATURES) as PromQLFeature[]);

let defaults: Required<ParseOptions> = parseOptionsFor(DEFAULT_PROMQL_FEATURES);

/** setPromQLFeatures sets the flags used by parses that pass no options. */
export function setPromQLFeatures(features: Iterable<PromQLFeature>): void {
  defaults = parseOptionsFor(features);
}

/** defaultParseOptions are the options of parses that pass none. */
export function defaultParseOptions(): Required<ParseOptions> {
  return defaults;
}
