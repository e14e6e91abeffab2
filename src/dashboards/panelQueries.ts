import { substituteBuiltins } from './builtinSubstitution.js';
import type { TimeContext } from './builtinVariables.js';
import type { DashboardSpec, DashboardVariable, Panel } from './types.js';
import { findVariableReferences } from './variables.js';

/**
 * Turning a stored panel into the queries to run for it, as a viewer of the dashboard would
 * see them: built-in variables from the run's time range and resolution, dashboard variables
 * from the values chosen (or their defaults). Anything that cannot be filled is an error that
 * says which value to supply, rather than a query sent off with `$name` still in it.
 */

/** PanelQueryError is a panel that cannot be run as asked; the message says what to change. */
export class PanelQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PanelQueryError';
  }
}

/** RunnableQuery is one query of a panel, ready for the engine. */
export interface RunnableQuery {
  /** where is the query's place in the spec, such as `queries[0]`. */
  where: string;
  language: 'promql' | 'logql';
  /** written is the query as the spec holds it; text is what runs. */
  written: string;
  text: string;
  /** name is the legend template, when the spec gives one. */
  name?: string;
}

/** ChosenValues are the values picked for dashboard variables, by variable name. */
export type ChosenValues = Readonly<Record<string, readonly string[]>>;

/**
 * panelQueries lists the visible queries of `panelId` with every variable filled in. Hidden
 * queries are skipped, as a viewer never sees them; kinds that draw no query results (service
 * graph, log events) have nothing to run here.
 */
export function panelQueries(spec: DashboardSpec, panelId: string, time: TimeContext, chosen: ChosenValues): RunnableQuery[] {
  const panel: Panel | undefined = Object.prototype.hasOwnProperty.call(spec.panels, panelId) ? spec.panels[panelId] : undefined;
  if (!panel) {
    const ids = Object.keys(spec.panels);
    throw new PanelQueryError(`the dashboard has no panel ${JSON.stringify(panelId)}; its panels are ${ids.slice(0, 50).join(', ')}${ids.length > 50 ? ' …' : ''}`);
  }
  if (panel.kind === 'service-graph' || panel.kind === 'log-events') {
    throw new PanelQueryError(`panel ${JSON.stringify(panelId)} is a ${panel.kind} panel, which draws no query results; run its LogQL with the log query tools instead`);
  }
  const variables = spec.variables ?? [];
  const out: RunnableQuery[] = [];
  panel.queries.forEach((q, n) => {
    if (q.hidden) return;
    const text = fillDashboardVariables(substituteBuiltins(q.query, time), variables, chosen);
    const runnable: RunnableQuery = { where: `queries[${n}]`, language: q.queryKind === 'loki' ? 'logql' : 'promql', written: q.query, text };
    if (q.name !== undefined) runnable.name = q.name;
    out.push(runnable);
  });
  if (out.length === 0) throw new PanelQueryError(`panel ${JSON.stringify(panelId)} has no visible queries to run`);
  return out;
}

/** REGEX_SPECIALS are the characters escaped in a value that becomes part of an alternation. */
const REGEX_SPECIALS = /[.*+?^${}()|[\]\\/]/g;

/**
 * fillDashboardVariables writes dashboard variable values into `text` (built-ins must already
 * be substituted). One value is written as it is; several become a regex alternation
 * `(a|b)` of escaped values, and "All" (includeAll with nothing chosen) becomes `.+`, as the
 * spec says for multi-value variables, which are matched with `=~`.
 */
export function fillDashboardVariables(text: string, variables: readonly DashboardVariable[], chosen: ChosenValues): string {
  const references = findVariableReferences(text);
  if (references.length === 0) return text;
  const byName = new Map(variables.map((v) => [v.name, v]));
  let out = '';
  let last = 0;
  for (const ref of references) {
    const variable = byName.get(ref.name);
    if (!variable) throw new PanelQueryError(`the query refers to $${ref.name}, which the dashboard does not define`);
    out += text.slice(last, ref.start) + valueOf(variable, chosen);
    last = ref.end;
  }
  return out + text.slice(last);
}

function valueOf(variable: DashboardVariable, chosen: ChosenValues): string {
  const picked = Object.prototype.hasOwnProperty.call(chosen, variable.name) ? chosen[variable.name] : variable.defaultValue ?? [];
  if (picked.length === 0) {
    if (variable.includeAll) return '.+';
    throw new PanelQueryError(`variable $${variable.name} has no value and no default; pass variables: {"${variable.name}": "<value>"}`);
  }
  if (picked.length === 1) return picked[0];
  return `(${picked.map((v) => v.replace(REGEX_SPECIALS, '\\$&')).join('|')})`;
}
