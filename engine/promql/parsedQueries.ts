import type { Expr } from './ast.js';
import { parseAndCheckPromQL } from './checker.js';
import { defaultParseOptions } from './features.js';
import type { ParseOptions } from './parser.js';

/** PARSED_QUERIES_KEPT bounds the trees kept: the panels of many dashboards. */
const PARSED_QUERIES_KEPT = 256;

/** LONGEST_KEPT_QUERY is the longest text whose tree is kept; longer ones are rare and big. */
const LONGEST_KEPT_QUERY = 4096;

/** kept maps options and text to the checked tree, least recently used first. */
const kept = new Map<string, Expr>();

/**
 * parsedPromQL is parseAndCheckPromQL for texts that come again and again: every refresh of a
 * dashboard panel, and on a worker every slice and shard of one query. Parsing costs a tenth
 * to a quarter of a millisecond (most of it compiling regex matchers to check them), as much as
 * evaluating a small instant query, so the checked tree of a recent text is handed out again.
 *
 * The trees are shared, so they are frozen: evaluation reads a tree and never writes to it
 * (resolveDurations copies before fixing durations), and a write would throw. A text that
 * fails is not kept: it is parsed again to be reported.
 */
export function parsedPromQL(text: string, options: ParseOptions = defaultParseOptions()): Expr {
  const key = `${optionsKey(options)}\u0000${text}`;
  const found = kept.get(key);
  if (found !== undefined) {
    // Re-inserting moves the entry to the recently used end of the Map's order.
    kept.delete(key);
    kept.set(key, found);
    return found;
  }
  const expr = parseAndCheckPromQL(text, options);
  if (text.length <= LONGEST_KEPT_QUERY) {
    deepFreeze(expr);
    kept.set(key, expr);
    if (kept.size > PARSED_QUERIES_KEPT) kept.delete(kept.keys().next().value!);
  }
  return expr;
}

/** optionsKey names a set of parse options by their values, in a fixed order. */
function optionsKey(options: ParseOptions): string {
  let key = '';
  for (const name of Object.keys(options).sort()) key += `${name}=${String(options[name as keyof ParseOptions])};`;
  return key;
}

/** deepFreeze freezes a tree's plain objects and arrays; instances of classes keep their own state. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
