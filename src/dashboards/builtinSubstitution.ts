import { builtinText, computeBuiltinValues, formatProblem, isBuiltinVariable, type TimeContext } from './builtinVariables.js';
import { findVariableReferences } from './variables.js';

/**
 * substituteBuiltins writes the values of Grafana's built-in variables into a query about to
 * run for a dashboard panel, computed from that run's own time range and max data points.
 * Dashboard variables and unknown names are left as written: they are another step's business.
 * A `${__from:format}` with a format that is not understood is left too, so the query fails
 * visibly rather than running with a value the author did not ask for.
 */
export function substituteBuiltins(text: string, time: TimeContext): string {
  const references = findVariableReferences(text).filter(
    (ref) => isBuiltinVariable(ref.name) && (ref.format === undefined || formatProblem(ref.name, ref.format) === undefined),
  );
  if (references.length === 0) return text;
  const values = computeBuiltinValues(time);
  let out = '';
  let last = 0;
  for (const ref of references) {
    if (!isBuiltinVariable(ref.name)) continue;
    out += text.slice(last, ref.start) + builtinText(ref.name, values, ref.format);
    last = ref.end;
  }
  return out + text.slice(last);
}
