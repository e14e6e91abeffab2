import { IssueList, MAX_LISTED_ISSUES } from './issueList.js';
import type { DashboardValidation } from './issues.js';
import { lintDashboard, type LintOptions } from './lint.js';
import { compileSchemaChecker, loadDashboardSchema, type SchemaChecker } from './schema.js';
import type { DashboardSpec } from './types.js';

/**
 * DashboardValidator is the whole check of a spec: the schema first, then lint. Lint reads
 * fields by their declared types, so it runs only on a spec whose shape is right; a spec with
 * shape errors gets those alone, and its lint findings on the next attempt. An answer lists at
 * most MAX_LISTED_ISSUES errors and as many warnings, and counts the rest in `truncated`.
 */
export interface DashboardValidator {
  validate(value: unknown, options: LintOptions): DashboardValidation;
}

/**
 * createDashboardValidator takes the parsed schema and compiles it on first use, once: Ajv's
 * code generation costs a few hundred milliseconds, which start-up (and every server a test
 * starts) should not pay before anyone writes or validates a dashboard.
 */
export function createDashboardValidator(schema: object = loadDashboardSchema().schema, maxListed: number = MAX_LISTED_ISSUES): DashboardValidator {
  let checkSchema: SchemaChecker | undefined;
  return {
    validate(value, options): DashboardValidation {
      checkSchema ??= compileSchemaChecker(schema);
      const issues = new IssueList(maxListed);
      if (!checkSchema(value, issues)) return issues.toValidation();
      return lintDashboard(value as DashboardSpec, options, issues).toValidation();
    },
  };
}
