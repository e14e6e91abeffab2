/**
 * The nesting bound shared by the PromQL and LogQL front ends. Every pass over a syntax tree
 * (checker, printer, evaluator, planner) recurses once per level, so a tree deeper than the
 * call stack allows would crash the process with a RangeError instead of answering. Parsers
 * therefore refuse, with a positioned syntax error, any expression whose tree is deeper than
 * MAX_EXPRESSION_DEPTH: by nesting (`((((…))))`, `abs(abs(…))`, `- - - x`) or by a long chain
 * of binary operators (`a + a + … + a` builds a tree as deep as it has terms).
 *
 * 1000 levels is far beyond hand-written and generated dashboard queries (the deepest query of
 * the conformance corpora has fewer than 20) and leaves the slowest pass, evaluation on the
 * main thread's default stack, at least twice the stack it needs.
 */
export const MAX_EXPRESSION_DEPTH = 1000;

/** tooDeepMessage words the error for an expression deeper than MAX_EXPRESSION_DEPTH. */
export function tooDeepMessage(): string {
  return `expression nested too deeply: more than ${MAX_EXPRESSION_DEPTH} levels of parentheses, calls, aggregations, unary signs or chained binary operators`;
}

/**
 * firstTooDeep walks a tree without recursion and returns the first node (in source order)
 * lying deeper than MAX_EXPRESSION_DEPTH, or undefined when the whole tree is within it.
 */
export function firstTooDeep<T>(root: T, children: (node: T) => readonly T[]): T | undefined {
  const stack: Array<{ node: T; depth: number }> = [{ node: root, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > MAX_EXPRESSION_DEPTH) return node;
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i], depth: depth + 1 });
  }
  return undefined;
}
