/**
 * Comparing an evaluation's outcome with a test's expectations, with the upstream runner's
 * rules: floats equal within a relative 1e-6 (NaN equals NaN, a staleness marker only
 * another), series compared as a set unless the test asks for order, range results point by
 * point with `_` as "no point", and annotations matched message by message.
 */
import { labelsKey, type Labels } from '../../storage/labels.js';
import { compileRegex } from '../../regex/index.js';
import { almostEqual } from '../../promql/eval/almost.js';
import type { InstantValue, ResultSeries, VectorSample } from '../../promql/eval/index.js';
import { compact, customBoundsMatch, toSpans, usesCustomBuckets, type FloatHistogram } from '../../histogram/floatHistogram.js';
import { formatHistogram } from './histogramNotation.js';
import type { SequenceValue } from './seriesDescription.js';
import { formatLabels } from '../../storage/labels.js';
import type { EvalCommand, ExpectedSeries, MessageMatcher } from './script.js';

/** EPSILON is the relative tolerance the upstream runner allows between floats. */
export const EPSILON = 1e-6;

/** Mismatch explains why a result differs from the expectation. */
export class Mismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Mismatch';
  }
}

/** matchesMessage applies an `expect` line's msg:/regex: part (or none) to a text. */
export function matchesMessage(matcher: MessageMatcher, text: string): boolean {
  switch (matcher.kind) {
    case 'any':
      return true;
    case 'message':
      return matcher.text === text;
    case 'regex':
      return compileRegex(matcher.pattern).test(text);
  }
}

function describeMatcher(matcher: MessageMatcher): string {
  return matcher.kind === 'any' ? 'anything' : matcher.kind === 'message' ? JSON.stringify(matcher.text) : `/${matcher.pattern}/`;
}

/** checkAnnotations compares rendered warnings and infos with the eval's expect lines. */
export function checkAnnotations(cmd: EvalCommand, warnings: readonly string[], infos: readonly string[]): void {
  if (cmd.warn && warnings.length === 0) throw new Mismatch('expected warnings but got none');
  if (cmd.info && infos.length === 0) throw new Mismatch('expected info annotations but got none');
  const check = (expected: MessageMatcher[], actual: readonly string[], kind: string): void => {
    if (expected.length === 0) return;
    if (actual.length === 0) throw new Mismatch(`expected ${kind} annotations but none were found`);
    for (const e of expected) {
      if (!actual.some((a) => matchesMessage(e, a))) {
        throw new Mismatch(`expected ${kind} annotation matching ${describeMatcher(e)}, found: ${JSON.stringify(actual)}`);
      }
    }
    for (const a of actual) {
      if (!expected.some((e) => matchesMessage(e, a))) throw new Mismatch(`unexpected ${kind} annotation ${JSON.stringify(a)}`);
    }
  };
  check(cmd.expectedWarnings, warnings, 'warn');
  check(cmd.expectedInfos, infos, 'info');
  if (cmd.noWarn && warnings.length > 0) throw new Mismatch(`unexpected warning annotations: ${JSON.stringify(warnings)}`);
  if (cmd.noInfo && infos.length > 0) throw new Mismatch(`unexpected info annotations: ${JSON.stringify(infos)}`);
}

/** floatsEqual compares an expected and an actual value (NaN equals NaN). */
function floatsEqual(expected: number, actual: number): boolean {
  return almostEqual(expected, actual, EPSILON);
}

/** expectedByKey indexes expected series by label set; later duplicates replace earlier ones, as upstream. */
function expectedByKey(expected: readonly ExpectedSeries[]): Map<string, ExpectedSeries> {
  const map = new Map<string, ExpectedSeries>();
  for (const e of expected) map.set(labelsKey(e.labels), e);
  return map;
}

/** bucketsMatch compares one side of two compacted histograms: same layout, counts within EPSILON. */
function bucketsMatch(aI: Int32Array, aC: Float64Array, bI: Int32Array, bC: Float64Array): boolean {
  if (aI.length !== bI.length) return false;
  const aSpans = toSpans(aI);
  const bSpans = toSpans(bI);
  if (aSpans.length !== bSpans.length || aSpans.some((s, i) => s.offset !== bSpans[i].offset || s.length !== bSpans[i].length)) return false;
  for (let i = 0; i < aC.length; i++) if (!floatsEqual(aC[i], bC[i])) return false;
  return true;
}

/**
 * histogramsMatch compares an expected and an actual histogram as the upstream runner does:
 * both compacted, floats within EPSILON, the counter reset hint only when the test wrote it.
 */
export function histogramsMatch(expected: FloatHistogram, actual: FloatHistogram, hintSet: boolean): boolean {
  const e = compact(expected);
  const a = compact(actual);
  if (e.schema !== a.schema || !floatsEqual(e.count, a.count) || !floatsEqual(e.sum, a.sum)) return false;
  if (usesCustomBuckets(e) && !customBoundsMatch(e.customValues, a.customValues)) return false;
  if (e.zeroThreshold !== a.zeroThreshold || !floatsEqual(e.zeroCount, a.zeroCount)) return false;
  if (!bucketsMatch(e.negIndex, e.negCount, a.negIndex, a.negCount)) return false;
  if (!bucketsMatch(e.posIndex, e.posCount, a.posIndex, a.posCount)) return false;
  return !hintSet || e.counterResetHint === a.counterResetHint;
}

/** checkPoint compares one expected slot with an actual float or histogram; returns a reason or null. */
function checkPoint(want: SequenceValue | undefined, value: number, histogram: FloatHistogram | undefined): string | null {
  if (want !== undefined && want.kind === 'histogram') {
    if (histogram === undefined) return `expected histogram ${formatHistogram(want.histogram)} but got float value ${value}`;
    if (!histogramsMatch(want.histogram, histogram, want.hintSet)) return `expected ${formatHistogram(want.histogram)} but got ${formatHistogram(histogram)}`;
    return null;
  }
  const expectedFloat = want === undefined || want.kind !== 'float' ? NaN : want.value;
  if (histogram !== undefined) return `expected float value ${expectedFloat} but got histogram ${formatHistogram(histogram)}`;
  if (!floatsEqual(expectedFloat, value)) return `expected ${expectedFloat} but got ${value}`;
  return null;
}

function describeLabels(labels: Labels): string {
  return formatLabels(labels) || '{}';
}

/** compareVector checks an instant vector against the expected series. */
export function compareVector(cmd: EvalCommand, samples: readonly VectorSample[]): void {
  if (cmd.expectScalar !== null) throw new Mismatch('expected scalar result, but got a vector');
  const expected = expectedByKey(cmd.expected);
  const seen = new Set<string>();
  samples.forEach((sample, pos) => {
    const key = labelsKey(sample.labels);
    const exp = expected.get(key);
    if (exp === undefined) throw new Mismatch(`unexpected metric ${describeLabels(sample.labels)} in result, has value ${sample.value}`);
    if (cmd.ordered && exp.position !== pos + 1) {
      throw new Mismatch(`expected metric ${describeLabels(sample.labels)} at position ${exp.position} but was at ${pos + 1}`);
    }
    const problem = checkPoint(exp.values[0], sample.value, sample.histogram);
    if (problem !== null) throw new Mismatch(`${problem} for ${describeLabels(sample.labels)}`);
    seen.add(key);
  });
  for (const [key, exp] of expected) {
    if (!seen.has(key)) throw new Mismatch(`expected metric ${describeLabels(exp.labels)} not found`);
  }
}

/** compareMatrix checks range results point by point: one expected value per step from startMs. */
export function compareMatrix(cmd: EvalCommand, series: readonly ResultSeries[]): void {
  if (cmd.ordered) throw new Mismatch('expected ordered result, but query returned a matrix');
  if (cmd.expectScalar !== null) throw new Mismatch('expected scalar result, but got a matrix');
  const expected = expectedByKey(cmd.expected);
  const seen = new Set<string>();
  for (const s of series) {
    const key = labelsKey(s.labels);
    const exp = expected.get(key);
    if (exp === undefined) throw new Mismatch(`unexpected metric ${describeLabels(s.labels)} in result, has ${s.values.length} points`);
    seen.add(key);
    const wantT: number[] = [];
    const wantV: SequenceValue[] = [];
    exp.values.forEach((v, i) => {
      const t = cmd.startMs + i * cmd.stepMs;
      if (t > cmd.endMs) throw new Mismatch(`expected ${exp.values.length} points for ${describeLabels(exp.labels)}, but the query range cannot return this many`);
      if (v.kind === 'omitted') return;
      wantT.push(t);
      wantV.push(v);
    });
    if (wantT.length !== s.values.length) {
      throw new Mismatch(
        `expected ${wantT.length} points for ${describeLabels(exp.labels)}, got ${s.values.length}: ` +
          `[${Array.from(s.timestampsMs, (t, i) => `${s.values[i]}@${t}`).join(' ')}]`,
      );
    }
    for (let i = 0; i < wantT.length; i++) {
      if (wantT[i] !== s.timestampsMs[i]) {
        throw new Mismatch(`expected point ${i} of ${describeLabels(exp.labels)} at ${wantT[i]}, got ${s.timestampsMs[i]}`);
      }
      const problem = checkPoint(wantV[i], s.values[i], s.histograms?.[i]);
      if (problem !== null) throw new Mismatch(`${problem} at t=${wantT[i]} for ${describeLabels(exp.labels)}`);
    }
  }
  for (const [key, exp] of expected) {
    if (!seen.has(key)) throw new Mismatch(`expected metric ${describeLabels(exp.labels)} not found`);
  }
}

/** compareInstant checks an instant query's value against the expectation. */
export function compareInstant(cmd: EvalCommand, value: InstantValue): void {
  switch (value.type) {
    case 'vector':
      return compareVector(cmd, value.samples);
    case 'matrix':
      return compareMatrix(cmd, value.series);
    case 'scalar':
      if (cmd.expectScalar === null) throw new Mismatch(`expected vector or matrix result, but got scalar ${value.value}`);
      if (!floatsEqual(cmd.expectScalar, value.value)) throw new Mismatch(`expected scalar ${cmd.expectScalar} but got ${value.value}`);
      return;
    case 'string':
      if ((cmd.expectString ?? '') !== value.value) throw new Mismatch(`expected string ${JSON.stringify(cmd.expectString)} but got ${JSON.stringify(value.value)}`);
      return;
  }
}
