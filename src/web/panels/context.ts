import { createContext } from 'preact';
import type { DashboardVariable } from '../../dashboards/types.js';
import { fillDashboardVariables, PanelQueryError } from '../../dashboards/panelQueries.js';
import { substituteBuiltins } from '../../dashboards/builtinSubstitution.js';
import type { RunWindow } from '../lib/queryRun.js';
import type { TimeRange } from '../lib/time.js';
import type { Selection } from '../lib/variables.js';

/** PanelEnv is what every panel of a dashboard view shares: range, selection, refresh, crosshair. */
export interface PanelEnv {
  range: TimeRange;
  fromMs: number;
  toMs: number;
  window: RunWindow;
  /** refreshKey changes on every refresh, re-running every panel. */
  refreshKey: string;
  variables: DashboardVariable[];
  selection: Selection;
  /**
   * awaiting names the variables that take their first option (no value in the URL, no
   * default, no All) while their options are still on the way: a query using one waits.
   */
  awaiting: string[];
  smooth: boolean;
  /** syncKey is the crosshair group; undefined when the dashboard turns the shared crosshair off. */
  syncKey: string | undefined;
}

export const PanelEnvContext = createContext<PanelEnv | undefined>(undefined);

/**
 * fillQuery substitutes the built-ins ($__interval, $__range, ...) and the dashboard variables,
 * with the same code the server's dashboard tools use, so a panel runs what they would run.
 * Throws PanelQueryError naming the variable that has no value.
 */
export function fillQuery(text: string, env: PanelEnv): string {
  const time = { fromMs: env.fromMs, toMs: env.toMs, maxDataPoints: env.window.maxDataPoints };
  return fillDashboardVariables(substituteBuiltins(text, time), env.variables, env.selection);
}

export { PanelQueryError };

/** usesAwaited is true when `text` refers to a variable whose first option has not arrived yet. */
export function usesAwaited(text: string, env: PanelEnv): boolean {
  return env.awaiting.some((name) => text.includes(`$${name}`) || text.includes(`\${${name}`) || text.includes(`[[${name}`));
}

/** displayText fills variables into a title or description; text it cannot fill is shown as written. */
export function displayText(text: string, env: PanelEnv): string {
  try {
    return fillQuery(text, env);
  } catch {
    return text;
  }
}
