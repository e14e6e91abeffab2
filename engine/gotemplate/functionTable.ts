/**
 * The functions a `line_format` or `label_format` template may call: text/template's
 * built-ins plus the function map Loki installs (its own helpers, the sprig subset it
 * exports, and the per-line functions). The name lists are derived from the rows, so the
 * parser's check and the executor's table cannot drift apart.
 */
import { BUILTIN_FUNCTIONS } from './builtinFunctions.js';
import type { FunctionRow, TemplateFunctionDef } from './functionDef.js';
import { LOKI_FUNCTIONS, PER_LINE_FUNCTIONS } from './lokiFunctions.js';
import { SPRIG_FUNCTIONS } from './sprigFunctions.js';

function namesOf(rows: readonly FunctionRow[]): readonly string[] {
  return rows.map(([name]) => name);
}

/** TEMPLATE_FUNCTION_DEFS maps every callable name to its definition. */
export const TEMPLATE_FUNCTION_DEFS: ReadonlyMap<string, TemplateFunctionDef> = new Map<string, TemplateFunctionDef>([
  ...BUILTIN_FUNCTIONS,
  ...LOKI_FUNCTIONS,
  ...SPRIG_FUNCTIONS,
  ...PER_LINE_FUNCTIONS,
]);

/** GO_TEMPLATE_BUILTINS are the names text/template always defines. */
export const GO_TEMPLATE_BUILTINS: readonly string[] = namesOf(BUILTIN_FUNCTIONS);

/** LOKI_TEMPLATE_FUNCTIONS are the names of Loki's function map (pkg/logql/log/fmt.go). */
export const LOKI_TEMPLATE_FUNCTIONS: readonly string[] = namesOf([...LOKI_FUNCTIONS, ...SPRIG_FUNCTIONS, ...PER_LINE_FUNCTIONS]);

/** TEMPLATE_FUNCTIONS is the set of callable names, for the parser's check. */
export const TEMPLATE_FUNCTIONS: ReadonlySet<string> = new Set(TEMPLATE_FUNCTION_DEFS.keys());
