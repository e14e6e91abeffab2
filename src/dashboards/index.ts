/**
 * Dashboards: the spec's types, its validation (schema, then lint) and the HTTP routes that
 * store dashboards in the metadata store.
 */
export { dashboardRoutes, type DashboardRouteDeps } from './routes.js';
export { createDashboardValidator, type DashboardValidator } from './validate.js';
export { compileDashboardSchema, compileSchemaChecker, dashboardSchemaPath, loadDashboardSchema, type LoadedSchema, type SchemaCheck, type SchemaChecker } from './schema.js';
export { LINT_RULES, lintDashboard, type LintOptions, type LintRule, type LintRuleId } from './lint.js';
export { IssueList, MAX_LISTED_ISSUES, type IssueMessage } from './issueList.js';
export { findOverlaps, type CellOverlap } from './overlaps.js';
export { formatPath, formatPointer, type DashboardIssue, type DashboardValidation, type IssueSeverity } from './issues.js';
export { findVariableReferences, substitutePlaceholders, VARIABLE_NAME, type VariableReference } from './variables.js';
export {
  BUILTIN_VARIABLE_NAMES,
  builtinText,
  computeBuiltinValues,
  formatInterval,
  isBuiltinVariable,
  roundInterval,
  DEFAULT_MAX_DATA_POINTS,
  DEFAULT_SCRAPE_INTERVAL_MS,
  type BuiltinName,
  type BuiltinValues,
  type TimeContext,
} from './builtinVariables.js';
export { substituteBuiltins } from './builtinSubstitution.js';
export { PanelQueryError, fillDashboardVariables, panelQueries, type ChosenValues, type RunnableQuery } from './panelQueries.js';
export { checkInterlinks, interlinkTargets, loadDashboardDirectory, type DashboardDirectory } from './interlinks.js';
export { checkQuery, type QueryLanguage, type QueryShape, type QueryProblem } from './queryCheck.js';
export { etagOf, parseIfMatch, type IfMatch } from './preconditions.js';
export type * from './types.js';
export { DEFAULT_CATEGORY, GRID_COLUMNS, PANEL_KINDS } from './types.js';
