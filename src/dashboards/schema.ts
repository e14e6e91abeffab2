import { readFileSync } from 'node:fs';
import path from 'node:path';
import AjvModule, { type ValidateFunction } from 'ajv';
import { packageRoot } from '../packageRoot.js';
import { IssueList } from './issueList.js';
import type { DashboardIssue } from './issues.js';
import { collectSchemaFacts, translateSchemaErrors, type SchemaFacts } from './schemaErrors.js';

/**
 * The dashboard schema lives in `schemas/dashboard.schema.json` under the package root, the one
 * source for validation, the published copy and the docs. It is read and parsed once at
 * start-up, so a missing or unparsable file stops the service instead of failing a request.
 */

/** Ajv is the CommonJS default export of ajv, reached the same way under the compiler and at run time. */
const Ajv = AjvModule.default;

/** dashboardSchemaPath is where the schema sits: `schemas/dashboard.schema.json` under the package root. */
export function dashboardSchemaPath(root: string = packageRoot()): string {
  return path.join(root, 'schemas', 'dashboard.schema.json');
}

/** LoadedSchema holds the schema both as served bytes and as a parsed object. */
export interface LoadedSchema {
  bytes: Buffer;
  schema: object;
}

/** loadDashboardSchema reads and parses the schema file. */
export function loadDashboardSchema(file: string = dashboardSchemaPath()): LoadedSchema {
  const bytes = readFileSync(file);
  return { bytes, schema: JSON.parse(bytes.toString('utf8')) as object };
}

/** SchemaCheck checks a value against the schema and returns its findings (empty when it conforms). */
export type SchemaCheck = (value: unknown) => DashboardIssue[];

/** SchemaChecker checks a value, adding its findings to `into`; it answers whether the value conforms. */
export type SchemaChecker = (value: unknown, into: IssueList) => boolean;

/**
 * compileDashboardSchema builds the checker. `discriminator` makes Ajv pick the one panel kind
 * (and variable source) by its tag, so a wrong `kind` is one error instead of one per kind;
 * `verbose` keeps the failing schema beside each error for the message translation.
 */
export function compileDashboardSchema(schema: object): SchemaCheck {
  const check = compileSchemaChecker(schema);
  return (value) => {
    const issues = new IssueList(Number.POSITIVE_INFINITY);
    check(value, issues);
    return issues.all();
  };
}

/**
 * compileSchemaChecker is compileDashboardSchema for a bounded answer: findings past the list's
 * limit are counted without being translated.
 */
export function compileSchemaChecker(schema: object): SchemaChecker {
  const ajv = new Ajv({ allErrors: true, discriminator: true, verbose: true, strict: true });
  const validate: ValidateFunction = ajv.compile(schema);
  const facts: SchemaFacts = collectSchemaFacts(schema);
  return (value, into) => {
    if (validate(value)) return true;
    const before = into.errorCount;
    translateSchemaErrors(validate.errors ?? [], value, facts, into);
    if (into.errorCount === before) into.add('error', 'schema/invalid', [], 'does not match the dashboard schema');
    return false;
  };
}
