import type { DashboardVariable } from '../../dashboards/types.js';
import { fillDashboardVariables } from '../../dashboards/panelQueries.js';
import { call } from './api.js';

/** ALL_VALUE is what the spec substitutes for the All option. */
export const ALL_VALUE = '.+';

/** Selection is each variable's chosen values. */
export type Selection = Record<string, string[]>;

/** sortOptions applies the variable's sort; numerical sorts put non-numbers last. */
export function sortOptions(values: string[], sort: DashboardVariable['sort']): string[] {
  const out = [...values];
  const num = (v: string): number => (Number.isFinite(Number(v)) ? Number(v) : Number.POSITIVE_INFINITY);
  switch (sort) {
    case 'alphabetical-desc':
      return out.sort().reverse();
    case 'numerical':
      return out.sort((a, b) => num(a) - num(b));
    case 'numerical-desc':
      return out.sort((a, b) => num(b) - num(a));
    default:
      return out.sort();
  }
}

/**
 * loadOptions asks the helper endpoints for a variable's values over the range: a metric's
 * label values, or a log label's values, limited by the source's scope or expr (with earlier
 * variables already filled in), then filtered by regex and sorted.
 */
export async function loadOptions(variable: DashboardVariable, all: readonly DashboardVariable[], selection: Selection, s: string, e: string): Promise<string[]> {
  const source = variable.source as unknown as Record<string, string | undefined>;
  const others = all.filter((v) => v.name !== variable.name);
  const fill = (text: string): string => fillDashboardVariables(text, others, selection);
  let values: string[];
  if (source.signal === 'logs') {
    const body: Record<string, unknown> = { s, e, key: source.label, limit: 1000 };
    if (source.expr) body.match = fill(source.expr);
    values = (await call<{ data: string[] }>('/api/v1/logs/tagvalues', { body })).data;
  } else {
    const scope = source.scope ? fill(source.scope).trim() : '';
    const inner = scope.replace(/^\{|\}$/g, '');
    const match = `${source.metric}${inner === '' ? '' : `{${inner}}`}`;
    values = (await call<{ data: string[] }>('/api/v1/metrics/tagvalues', { body: { s, e, key: source.label, match, limit: 1000 } })).data;
  }
  if (variable.regex) {
    try {
      const re = new RegExp(variable.regex);
      values = values.filter((v) => re.test(v));
    } catch {
      // The server's lint reports a bad regex; show every option meanwhile.
    }
  }
  return sortOptions(values, variable.sort);
}

/** initialSelection takes each variable's values from the URL (var-<name>), else its default. */
export function initialSelection(variables: readonly DashboardVariable[], params: URLSearchParams): Selection {
  const out: Selection = {};
  for (const v of variables) {
    const fromUrl = params.getAll(`var-${v.name}`);
    if (fromUrl.length > 0) out[v.name] = fromUrl.filter((x) => x !== '');
    else if (v.defaultValue) out[v.name] = [...v.defaultValue];
  }
  return out;
}

/**
 * withFirstOptions gives each variable that has no value (none in the URL, no default) and no
 * All option its first option once the options are known, as its picker then shows it (and as
 * Grafana's pickers do); without it every query using the variable would fail for want of a
 * value. A variable the viewer emptied stays empty. Nothing to fill returns `chosen` itself.
 */
export function withFirstOptions(chosen: Selection, variables: readonly DashboardVariable[], options: Readonly<Record<string, string[]>>): Selection {
  let out = chosen;
  for (const v of variables) {
    const first = options[v.name]?.[0];
    if (chosen[v.name] !== undefined || v.includeAll || first === undefined) continue;
    if (out === chosen) out = { ...chosen };
    out[v.name] = [first];
  }
  return out;
}
