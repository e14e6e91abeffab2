import type { DashboardIssue, DashboardValidation } from './issues.js';
import { lintDashboard, type LintOptions } from './lint.js';
import { compileDashboardSchema, loadDashboardSchema, type SchemaCheck } from './schema.js';
import type { DashboardSpec } from './types.js';

/**
 * DashboardValidator is the whole check of a spec: the schema first, then lint. Lint reads
 * fields by their declared types, so it runs only on a spec whose shape is right; a spec with
 * shape errors gets those alone, and its lint findings on the next attempt.
 */
export interface DashboardValidator {
  validate(value: unknown, options: LintOptions): DashboardValidation;
}

/**
 * createDashboardValidator takes the parsed schema and compiles it on first use, once: Ajv's
 * code generation costs a few hundred milliseconds, which start-up (and every server a test
 * starts) should not pay before anyone writes or validates a dashboard.
 */
export function createDashboardValidator(schema: object = loadDashboardSchema().schema): DashboardValidator {
  let checkSchema: SchemaCheck | undefined;
  return {
    validate(value, options) {
      checkSchema ??= compileDashboardSchema(schema);
      const shapeErrors = checkSchema(value);
      if (shapeErrors.length > 0) return { valid: false, errors: shapeErrors, warnings: [] };
      return split(lintDashboard(value as DashboardSpec, options));
    },
  };
}

function split(issues: DashboardIssue[]): DashboardValidation {
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  return { valid: errors.length === 0, errors, warnings };
}
