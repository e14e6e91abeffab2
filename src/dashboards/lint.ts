import { parsePromDuration } from '../../engine/index.js';
import { IssueList, type IssueMessage } from './issueList.js';
import { formatPath, type IssueSeverity, type Location } from './issues.js';
import { findOverlaps } from './overlaps.js';
import { checkQuery, type QueryLanguage, type QueryShape } from './queryCheck.js';
import { suggestClosest } from '../suggest.js';
import { GRID_COLUMNS, type DashboardSpec, type GridCell, type Panel, type QueryKind } from './types.js';
import { BUILTIN_VARIABLE_NAMES, formatProblem, isBuiltinVariable } from './builtinVariables.js';
import { checkInterlinks, type DashboardDirectory } from './interlinks.js';
import { VARIABLE_NAME, findVariableReferences, substitutePlaceholders } from './variables.js';

/**
 * Lint checks what the schema cannot express: references between parts of the spec (grid
 * cells to panels, queries to variables), grid geometry, and whether queries parse. It runs on
 * a spec that already passed the schema, so it reads fields by their declared types.
 *
 * Every rule costs time in proportion to the spec (or n log n, for overlapping cells): a
 * generated dashboard with 10,000 panels is checked in well under a second. Messages that search
 * (a "did you mean" over every panel id) are built only for the findings that are listed.
 */

export type LintRuleId =
  | 'panel-id-mismatch'
  | 'unknown-panel'
  | 'unplaced-panel'
  | 'duplicate-placement'
  | 'grid-overflow'
  | 'cell-overlap'
  | 'query-syntax'
  | 'query-kind-mismatch'
  | 'unknown-variable'
  | 'variable-format'
  | 'unknown-interlink-target'
  | 'unused-variable'
  | 'invalid-duration'
  | 'invalid-variable-name'
  | 'duplicate-variable'
  | 'variable-options'
  | 'log-events-source'
  | 'deprecated-field'
  | 'ignored-queries'
  | 'empty-queries'
  | 'library-ref';

export interface LintRule {
  severity: IssueSeverity;
  summary: string;
}

/**
 * LINT_RULES documents every rule and its severity. Errors block create and replace; warnings
 * are returned beside a stored dashboard. Two rules vary: `query-syntax` is a warning when a
 * variable stands bare in the expression (its placeholder is a guess), and `library-ref` is an
 * error on create but a warning on replace, where the field is removed.
 */
export const LINT_RULES: Readonly<Record<LintRuleId, LintRule>> = {
  'panel-id-mismatch': { severity: 'error', summary: 'A panel\'s id equals its key in panels.' },
  'unknown-panel': { severity: 'error', summary: 'Every grid cell `i` names a panel in panels.' },
  'unplaced-panel': { severity: 'warning', summary: 'A panel placed in no section is never shown.' },
  'duplicate-placement': { severity: 'warning', summary: 'A panel is placed in more than one cell.' },
  'grid-overflow': { severity: 'error', summary: 'x + w is at most 24, the grid width.' },
  'cell-overlap': { severity: 'warning', summary: 'Cells in one section do not overlap.' },
  'query-syntax': { severity: 'error', summary: 'Every query parses and type-checks as PromQL or LogQL (per queryKind) after substituting variables.' },
  'query-kind-mismatch': { severity: 'error', summary: 'LogQL used for a chart returns numbers; rawLogql and variable expr select log lines.' },
  'unknown-variable': { severity: 'error', summary: 'Every $var and ${var} names a dashboard variable or a built-in such as $__rate_interval.' },
  'variable-format': { severity: 'error', summary: '${var:format} is used only as ${__from:date}, ${__from:date:iso} or ${__from:date:seconds} (or with __to).' },
  'unknown-interlink-target': { severity: 'warning', summary: 'An interlink\'s targetDashboardId names a dashboard of the same org.' },
  'unused-variable': { severity: 'warning', summary: 'Every variable is used somewhere.' },
  'invalid-duration': { severity: 'error', summary: 'duration (and a log builder window) is a positive duration such as 1h or 7d.' },
  'invalid-variable-name': { severity: 'error', summary: 'A variable name is letters, digits and _, not starting with a digit or with __ (kept for built-ins).' },
  'duplicate-variable': { severity: 'error', summary: 'Variable names are unique.' },
  'variable-options': { severity: 'warning', summary: 'includeAll and several default values need multi.' },
  'log-events-source': { severity: 'error', summary: 'A log-events panel sets rawLogql or logqlState.' },
  'deprecated-field': { severity: 'warning', summary: 'log-events serviceName and level are deprecated.' },
  'ignored-queries': { severity: 'warning', summary: 'service-graph and log-events panels ignore queries; use an empty array.' },
  'empty-queries': { severity: 'warning', summary: 'A panel kind that draws query results has at least one query.' },
  'library-ref': { severity: 'error', summary: 'libraryRef is deleted before create; replace removes it.' },
};

export interface LintOptions {
  /** mode is the operation the spec is checked for: libraryRef is refused on create, removed on replace. */
  mode: 'create' | 'replace';
  /**
   * dashboards says which dashboard ids exist in the spec's org, for the interlink check; when
   * absent (a spec checked on its own, away from any org) interlinks are not checked.
   */
  dashboards?: DashboardDirectory;
}

/** KINDS_WITHOUT_QUERIES are the panel kinds whose queries array is empty by contract. */
const KINDS_WITHOUT_QUERIES: ReadonlySet<Panel['kind']> = new Set(['service-graph', 'log-events']);

/** TextField is a string in the spec that may reference variables, and how to check it as a query. */
interface TextField {
  location: Location;
  text: string;
  query?: { language: QueryLanguage; shape: QueryShape };
  /** owner is the variable whose source holds this text, so it does not count as a use of itself. */
  owner?: string;
}

/**
 * lintDashboard runs every rule over a spec that passed the schema, adding the findings to
 * `issues` (by default a list without a limit) and returning it.
 */
export function lintDashboard(spec: DashboardSpec, options: LintOptions, issues: IssueList = new IssueList(Number.POSITIVE_INFINITY)): IssueList {
  const report = (rule: LintRuleId, location: Location, message: IssueMessage, severity: IssueSeverity = LINT_RULES[rule].severity): void => {
    issues.add(severity, rule, location, message);
  };
  checkLibraryRef(spec, options, report);
  checkDuration(spec.duration, ['duration'], report);
  checkPanels(spec, report);
  checkLayout(spec, report);
  checkVariables(spec, report);
  checkMetricsSources(spec, issues);
  checkTexts(spec, issues, report);
  if (options.dashboards) checkInterlinks(spec, options.dashboards, (location, message) => report('unknown-interlink-target', location, message));
  return issues;
}

type Report = (rule: LintRuleId, location: Location, message: IssueMessage, severity?: IssueSeverity) => void;

/** LISTED_NAMES is how many defined variables an unknown-variable message lists. */
const LISTED_NAMES = 20;

function checkLibraryRef(spec: DashboardSpec, options: LintOptions, report: Report): void {
  if (spec.libraryRef === undefined) return;
  if (options.mode === 'create') {
    report(
      'library-ref',
      ['libraryRef'],
      'libraryRef marks a gallery dashboard and must be deleted before creating a dashboard from an exported spec; remove the field and retry',
    );
  } else {
    report('library-ref', ['libraryRef'], 'libraryRef is removed when a dashboard is updated; the stored spec will not have it', 'warning');
  }
}

function checkDuration(text: string, location: Location, report: Report): void {
  const ms = parsePromDuration(text);
  if (ms === undefined) {
    report('invalid-duration', location, `${JSON.stringify(text)} is not a duration; write a number and a unit, such as 30m, 1h, 24h or 7d`);
  } else if (ms <= 0) {
    report('invalid-duration', location, 'must be longer than zero, such as 1h');
  }
}

function checkPanels(spec: DashboardSpec, report: Report): void {
  for (const [key, panel] of Object.entries(spec.panels)) {
    const at: Location = ['panels', key];
    if (panel.id !== key) {
      report('panel-id-mismatch', [...at, 'id'], `panel id ${JSON.stringify(panel.id)} differs from its key ${JSON.stringify(key)} in panels; they must be equal`);
    }
    if (KINDS_WITHOUT_QUERIES.has(panel.kind)) {
      if (panel.queries.length > 0) {
        report('ignored-queries', [...at, 'queries'], `a ${panel.kind} panel does not use queries; they are ignored, so use an empty array`);
      }
    } else if (panel.queries.length === 0) {
      report('empty-queries', [...at, 'queries'], `a ${panel.kind} panel draws query results but has no queries, so it stays empty`);
    }
    if (panel.kind === 'log-events') {
      if (panel.rawLogql === undefined && panel.logqlState === undefined) {
        report('log-events-source', at, 'a log-events panel needs rawLogql or logqlState to know which logs to show');
      }
      for (const field of ['serviceName', 'level'] as const) {
        if (panel[field] !== undefined) {
          report('deprecated-field', [...at, field], `${field} is deprecated; express it in rawLogql or logqlState instead`);
        }
      }
      if (panel.logqlState) checkDuration(panel.logqlState.window, [...at, 'logqlState', 'window'], report);
    }
  }
}

function checkLayout(spec: DashboardSpec, report: Report): void {
  const panelIds = Object.keys(spec.panels);
  const known = new Set(panelIds);
  const placedAt = new Map<string, Location>();
  spec.sections.forEach((section, s) => {
    section.cells.forEach((cell, c) => {
      const at: Location = ['sections', s, 'cells', c];
      if (!known.has(cell.i)) {
        report('unknown-panel', [...at, 'i'], () => {
          const hint = suggestClosest(cell.i, panelIds);
          return `places panel ${JSON.stringify(cell.i)}, but panels has no such id${hint ? `; did you mean "${hint}"?` : ''}`;
        });
      } else {
        const first = placedAt.get(cell.i);
        if (first) report('duplicate-placement', [...at, 'i'], () => `panel ${JSON.stringify(cell.i)} is already placed at ${formatPath(first)}; it is drawn twice`);
        else placedAt.set(cell.i, at);
      }
      if (cell.x + cell.w > GRID_COLUMNS) {
        report('grid-overflow', at, `x + w is ${cell.x + cell.w}, past the ${GRID_COLUMNS}-column grid; make x + w at most ${GRID_COLUMNS}`);
      }
    });
    checkOverlaps(section.cells, s, report);
  });
  for (const id of panelIds) {
    if (!placedAt.has(id)) {
      report('unplaced-panel', ['panels', id], `panel ${JSON.stringify(id)} is not placed in any section, so it is never shown`);
    }
  }
}

/**
 * checkOverlaps reports each cell that overlaps a cell above it once, at the lower cell, naming
 * one cell it overlaps: n cells on one spot are n - 1 findings, not n² / 2.
 */
function checkOverlaps(cells: readonly GridCell[], section: number, report: Report): void {
  for (const { index, other } of findOverlaps(cells)) {
    report(
      'cell-overlap',
      ['sections', section, 'cells', index],
      () => `overlaps the cell of panel ${JSON.stringify(cells[other].i)} at ${formatPath(['sections', section, 'cells', other])}; the layout will push one of them down`,
    );
  }
}

function checkVariables(spec: DashboardSpec, report: Report): void {
  const seen = new Map<string, number>();
  (spec.variables ?? []).forEach((variable, v) => {
    const at: Location = ['variables', v];
    if (!VARIABLE_NAME.test(variable.name)) {
      report(
        'invalid-variable-name',
        [...at, 'name'],
        `${JSON.stringify(variable.name)} is not a valid variable name: use letters, digits and _, not starting with a digit`,
      );
    } else if (variable.name.startsWith('__')) {
      report(
        'invalid-variable-name',
        [...at, 'name'],
        `${JSON.stringify(variable.name)} starts with __, which is kept for built-in variables such as $__interval; choose another name`,
      );
    }
    const first = seen.get(variable.name);
    if (first !== undefined) {
      report('duplicate-variable', [...at, 'name'], () => `a variable named ${JSON.stringify(variable.name)} is already defined at ${formatPath(['variables', first])}`);
    } else {
      seen.set(variable.name, v);
    }
    if (variable.includeAll && !variable.multi) {
      report('variable-options', [...at, 'includeAll'], 'includeAll only takes effect with multi: true');
    }
    if ((variable.defaultValue?.length ?? 0) > 1 && !variable.multi) {
      report('variable-options', [...at, 'defaultValue'], 'several default values need multi: true; only one can be selected');
    }
  });
}

/** checkTexts checks every query, then every variable reference against the defined variables. */
function checkTexts(spec: DashboardSpec, issues: IssueList, report: Report): void {
  const fields = collectTextFields(spec);
  for (const field of fields) {
    if (!field.query) continue;
    const problem = checkQuery(field.text, field.query.language, field.query.shape);
    if (problem) issues.add(problem.severity, problem.rule, field.location, problem.message, problem.position);
  }
  const variables = spec.variables ?? [];
  const defined = new Set(variables.map((v) => v.name));
  const used = new Set<string>();
  for (const field of fields) {
    const reported = new Set<string>();
    for (const ref of findVariableReferences(field.text)) {
      if (ref.name !== field.owner) used.add(ref.name);
      if (ref.format !== undefined) {
        const problem = formatProblem(ref.name, ref.format);
        if (problem) report('variable-format', field.location, problem);
      }
      if (defined.has(ref.name) || isBuiltinVariable(ref.name) || reported.has(ref.name)) continue;
      reported.add(ref.name);
      report('unknown-variable', field.location, () => unknownVariableMessage(ref.name, defined));
    }
  }
  variables.forEach((variable, v) => {
    if (!used.has(variable.name)) {
      report('unused-variable', ['variables', v, 'name'], `variable ${JSON.stringify(variable.name)} is not used by any query`);
    }
  });
}

function unknownVariableMessage(name: string, defined: ReadonlySet<string>): string {
  if (name.startsWith('__')) {
    const hint = suggestClosest(name, BUILTIN_VARIABLE_NAMES);
    return `refers to $${name}, which is not a built-in variable (built-ins: ${BUILTIN_VARIABLE_NAMES.map((b) => '$' + b).join(', ')})${hint ? `; did you mean $${hint}?` : ''}`;
  }
  const hint = suggestClosest(name, defined);
  let known = 'the dashboard defines no variables';
  if (defined.size > 0) {
    const names = [...defined].slice(0, LISTED_NAMES).join(', ');
    known = `defined: ${names}${defined.size > LISTED_NAMES ? ` and ${defined.size - LISTED_NAMES} more` : ''}`;
  }
  return `refers to $${name}, which is not a dashboard variable (${known})${hint ? `; did you mean $${hint}?` : ''}`;
}

function languageOf(kind: QueryKind | undefined): QueryLanguage {
  return kind === 'loki' ? 'logql' : 'promql';
}

/** chartQuery is how a panel or highlight query is checked: LogQL there must return numbers. */
function chartQuery(kind: QueryKind | undefined): { language: QueryLanguage; shape: QueryShape } {
  const language = languageOf(kind);
  return { language, shape: language === 'logql' ? 'metric' : 'any' };
}

function collectTextFields(spec: DashboardSpec): TextField[] {
  const fields: TextField[] = [];
  for (const [key, panel] of Object.entries(spec.panels)) {
    const at: Location = ['panels', key];
    panel.queries.forEach((q, n) => {
      fields.push({ location: [...at, 'queries', n, 'query'], text: q.query, query: chartQuery(q.queryKind) });
    });
    if (panel.kind === 'timeseries' && panel.highlightWhen) {
      const h = panel.highlightWhen;
      fields.push({ location: [...at, 'highlightWhen', 'query'], text: h.query, query: chartQuery(h.queryKind) });
    }
    if (panel.kind === 'service-graph' && panel.serviceName !== undefined) {
      fields.push({ location: [...at, 'serviceName'], text: panel.serviceName });
    }
    if (panel.kind === 'log-events') {
      if (panel.rawLogql !== undefined) {
        fields.push({ location: [...at, 'rawLogql'], text: panel.rawLogql, query: { language: 'logql', shape: 'log' } });
      }
      panel.logqlState?.filters.forEach((f, n) => {
        fields.push({ location: [...at, 'logqlState', 'filters', n, 'value'], text: f.value });
      });
    }
  }
  (spec.variables ?? []).forEach((variable, v) => {
    const at: Location = ['variables', v, 'source'];
    const owner = variable.name;
    const source = variable.source;
    if (source.signal === 'metrics') {
      fields.push({ location: [...at, 'metric'], text: source.metric, owner });
      if (source.scope !== undefined) fields.push({ location: [...at, 'scope'], text: source.scope, owner });
    } else if (source.expr !== undefined) {
      fields.push({ location: [...at, 'expr'], text: source.expr, owner, query: { language: 'logql', shape: 'log' } });
    }
  });
  return fields;
}

/** METRIC_NAME is Prometheus' metric name rule. */
const METRIC_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*$/;

/**
 * checkMetricsSources checks each metrics variable source: the metric is a metric name, and
 * the scope parses as label matchers, found by parsing `metric{scope}` as PromQL. Positions are
 * shifted back so they point into the scope text.
 */
function checkMetricsSources(spec: DashboardSpec, issues: IssueList): void {
  (spec.variables ?? []).forEach((variable, v) => {
    const source = variable.source;
    if (source.signal !== 'metrics') return;
    const at: Location = ['variables', v, 'source'];
    const metric = substitutePlaceholders(source.metric).text;
    if (!METRIC_NAME.test(metric)) {
      issues.add('error', 'query-syntax', [...at, 'metric'], `${JSON.stringify(source.metric)} is not a valid metric name: letters, digits, _ and :, not starting with a digit`);
      return;
    }
    if (source.scope === undefined || source.scope.trim() === '') return;
    const prefix = `${metric}{`;
    const problem = checkQuery(prefix + source.scope + '}', 'promql', 'any');
    if (!problem) return;
    const reason = problem.message.replace(/^query (?:does not parse as|is not valid) PromQL: (?:\d+:\d+: )?/, '');
    const position = problem.position && {
      start: Math.max(0, problem.position.start - prefix.length),
      end: Math.max(0, problem.position.end - prefix.length),
    };
    const where = position ? `column ${position.start + 1}: ` : '';
    issues.add(
      problem.severity,
      'query-syntax',
      [...at, 'scope'],
      `scope is not a valid list of label matchers such as job="api", namespace="$namespace": ${where}${reason}`,
      position,
    );
  });
}
