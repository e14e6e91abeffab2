/**
 * The six numeric comparison operators PromQL and LogQL share (binary operators, `bool`
 * comparisons, label filters). Evaluation loops resolve the operator to a function once per
 * call and then call that function for every sample, so the per-sample cost is one direct call
 * instead of a string switch.
 */

/** ComparisonOperator is a comparison spelled as both query languages spell it. */
export type ComparisonOperator = '==' | '!=' | '>' | '<' | '>=' | '<=';

/** NumberComparison answers one comparison between two samples (NaN compares false, except `!=`). */
export type NumberComparison = (a: number, b: number) => boolean;

const isEqual: NumberComparison = (a, b) => a === b;
const isNotEqual: NumberComparison = (a, b) => a !== b;
const isGreater: NumberComparison = (a, b) => a > b;
const isLess: NumberComparison = (a, b) => a < b;
const isGreaterOrEqual: NumberComparison = (a, b) => a >= b;
const isLessOrEqual: NumberComparison = (a, b) => a <= b;

/** isComparisonOperator tells whether an operator token is one of the six comparisons. */
export function isComparisonOperator(op: string): op is ComparisonOperator {
  return op === '==' || op === '!=' || op === '>' || op === '<' || op === '>=' || op === '<=';
}

/**
 * comparisonFor resolves an operator to its comparison. Callers check the operator first
 * (the parsers only build comparisons from these tokens), so an unknown one is a programming
 * error and throws rather than silently filtering everything out.
 */
export function comparisonFor(op: string): NumberComparison {
  switch (op) {
    case '==':
      return isEqual;
    case '!=':
      return isNotEqual;
    case '>':
      return isGreater;
    case '<':
      return isLess;
    case '>=':
      return isGreaterOrEqual;
    case '<=':
      return isLessOrEqual;
    default:
      throw new Error(`not a comparison operator: ${op}`);
  }
}
