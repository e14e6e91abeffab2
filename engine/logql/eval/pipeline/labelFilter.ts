/**
 * Label filters: string matchers, numeric, duration and byte-size comparisons, `ip()`, and
 * their `and`/`or` combinations. As in Loki a converting filter that cannot read its label's
 * value keeps the line and marks it `__error__="LabelFilterErr"` (unless an earlier error is
 * there), so the failure shows instead of silently dropping data; a missing label drops the
 * line. `and` evaluates both sides; `or` stops at the first that keeps the line.
 */
import type { ComparisonOp, LabelFilterExpr, StringLabelFilter } from '../../ast.js';
import { compileRegex } from '../../../regex/index.js';
import { comparisonFor } from '../../../common/compare.js';
import { parseBytesValue, parseDurationValue, type Converted } from '../conversions.js';
import { parseGoFloat, plainIntegerAscii } from '../../../common/goFloat.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { ERROR_LABEL } from '../labelsBuilder.js';
import { textContainsIp } from './ipSearch.js';
import type { Stage, ValueGate } from './stage.js';
import { sameAsciiAt } from './wantedKeys.js';

/** LABEL_FILTER_ERROR is the `__error__` value of a failed conversion. */
export const LABEL_FILTER_ERROR = 'LabelFilterErr';

/** LabelPredicate decides one line from its labels (and may record an error on them). */
export type LabelPredicate = (labels: LabelsBuilder) => boolean;

function converting(name: string, op: ComparisonOp, target: number, convert: (v: string) => Converted): LabelPredicate {
  const compare = comparisonFor(op);
  return (labels) => {
    const raw = labels.get(name);
    if (raw === undefined) return false;
    const value = convert(raw);
    if (!value.ok) {
      if (!labels.hasError()) labels.setError(LABEL_FILTER_ERROR, value.message);
      return true;
    }
    return compare(value.value, target);
  };
}

function durationNs(text: string): Converted {
  const v = parseDurationValue(text);
  return v.ok ? { ok: true, value: Math.round(v.value) } : v;
}

/** stringValueTest compiles the `op "value"` of a string matcher into a value test. */
export function stringValueTest(filter: Pick<StringLabelFilter, 'op' | 'value'>): (value: string) => boolean {
  const { op, value } = filter;
  switch (op) {
    case '=':
      return (v) => v === value;
    case '!=':
      return (v) => v !== value;
    case '=~': {
      const re = compileRegex(value, { anchored: true });
      return (v) => re.test(v);
    }
    case '!~': {
      const re = compileRegex(value, { anchored: true });
      return (v) => !re.test(v);
    }
  }
}

/** compileLabelPredicate compiles a label filter expression. */
export function compileLabelPredicate(filter: LabelFilterExpr): LabelPredicate {
  switch (filter.kind) {
    case 'StringLabelFilter': {
      const test = stringValueTest(filter);
      const name = filter.name;
      if (name === ERROR_LABEL) return (labels) => test(labels.error());
      return (labels) => test(labels.get(name) ?? '');
    }
    case 'NumericLabelFilter':
      return converting(filter.name, filter.op, filter.value, parseGoFloat);
    case 'DurationLabelFilter':
      return converting(filter.name, filter.op, Math.round(filter.durationMs * 1e6), durationNs);
    case 'BytesLabelFilter':
      return converting(filter.name, filter.op, filter.bytes, parseBytesValue);
    case 'IpLabelFilter': {
      const { name, ip } = filter;
      const negate = filter.op === '!=';
      return (labels) => {
        if (labels.hasError()) return true;
        const v = labels.get(name);
        if (v === undefined) return false;
        return textContainsIp(v, ip) !== negate;
      };
    }
    case 'BinaryLabelFilter': {
      const left = compileLabelPredicate(filter.left);
      const right = compileLabelPredicate(filter.right);
      if (filter.op === 'or') return (labels) => left(labels) || right(labels);
      return (labels) => {
        const l = left(labels);
        const r = right(labels);
        return l && r;
      };
    }
  }
}

/**
 * valueGate compiles the part of a filter that can be decided on a parser's found values while
 * they are still bytes (ValueGate): a number compared to a plain integer (the digits
 * parseGoFloat reads exactly), a string tested for `=` or `!=`, and `and` / `or` of those.
 * Anything else, a label the parser did not find (it may be a stream label) or a value of
 * another spelling cannot be told there, and leaves the line to the filter itself.
 */
export function valueGate(filter: LabelFilterExpr): ValueGate | undefined {
  switch (filter.kind) {
    case 'NumericLabelFilter': {
      const { name, value: target } = filter;
      const compare = comparisonFor(filter.op);
      return (found, bytes) => {
        const k = found.indexOf(name);
        if (k < 0) return true;
        const value = plainIntegerAscii(bytes, found.startOf(k), found.endOf(k));
        return value === undefined || compare(value, target);
      };
    }
    case 'StringLabelFilter': {
      if ((filter.op !== '=' && filter.op !== '!=') || filter.name === ERROR_LABEL) return undefined;
      const { name, value } = filter;
      const equal = filter.op === '=';
      return (found, bytes) => {
        const k = found.indexOf(name);
        if (k < 0) return true;
        const start = found.startOf(k);
        return (found.endOf(k) - start === value.length && sameAsciiAt(bytes, start, value)) === equal;
      };
    }
    case 'BinaryLabelFilter': {
      const left = valueGate(filter.left);
      const right = valueGate(filter.right);
      if (filter.op === 'and') {
        if (left === undefined) return right;
        if (right === undefined) return left;
        return (found, bytes) => left(found, bytes) && right(found, bytes);
      }
      if (left === undefined || right === undefined) return undefined;
      return (found, bytes) => left(found, bytes) || right(found, bytes);
    }
    default:
      return undefined;
  }
}

/** filterLabelNames adds the labels a filter reads to `out`, for the parser hints. */
function filterLabelNames(filter: LabelFilterExpr, out: Set<string>): void {
  if (filter.kind === 'BinaryLabelFilter') {
    filterLabelNames(filter.left, out);
    filterLabelNames(filter.right, out);
  } else {
    out.add(filter.name);
  }
}

/** LabelFilter is a label filter stage. */
export class LabelFilter implements Stage {
  readonly requiredLabelNames: readonly string[];
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = false;
  readonly readsLine = false;
  /** valueGate is what of the filter a parser reading bytes can decide before making labels. */
  readonly valueGate: ValueGate | undefined;
  private readonly predicate: LabelPredicate;

  constructor(filter: LabelFilterExpr) {
    this.predicate = compileLabelPredicate(filter);
    this.valueGate = valueGate(filter);
    const names = new Set<string>();
    filterLabelNames(filter, names);
    this.requiredLabelNames = [...names];
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    return this.predicate(labels) ? line : null;
  }
}
