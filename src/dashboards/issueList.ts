import { issueAt, type DashboardIssue, type DashboardValidation, type IssueSeverity, type Location } from './issues.js';

/**
 * MAX_LISTED_ISSUES is how many errors, and separately how many warnings, one answer lists. A
 * spec with thousands of problems (a generated dashboard with every cell on the same spot) is
 * still fixed a few findings at a time, and listing them all made answers of hundreds of
 * megabytes; the rest are counted in `truncated`.
 */
export const MAX_LISTED_ISSUES = 100;

/** IssueMessage is a finding's text, or a function that builds it when the finding is listed. */
export type IssueMessage = string | (() => string);

/**
 * IssueList collects findings up to a limit per severity and counts the rest. A message may be
 * given as a function so that costly text (a "did you mean" search over every panel id) is only
 * built for findings that are listed: past the limit a finding costs a counter increment.
 */
export class IssueList {
  private readonly listed: Record<IssueSeverity, DashboardIssue[]> = { error: [], warning: [] };
  private readonly omitted: Record<IssueSeverity, number> = { error: 0, warning: 0 };

  constructor(private readonly limit: number = MAX_LISTED_ISSUES) {}

  add(severity: IssueSeverity, rule: string, location: Location, message: IssueMessage, position?: { start: number; end: number }): void {
    if (this.listed[severity].length >= this.limit) {
      this.omitted[severity]++;
      return;
    }
    this.listed[severity].push(issueAt(severity, rule, location, typeof message === 'string' ? message : message(), position));
  }

  /** addIssue adds a finding that is already built (schema findings are translated in bulk). */
  addIssue(issue: DashboardIssue): void {
    if (this.listed[issue.severity].length >= this.limit) this.omitted[issue.severity]++;
    else this.listed[issue.severity].push(issue);
  }

  /** hasRoom says whether another finding of `severity` would be listed rather than only counted. */
  hasRoom(severity: IssueSeverity): boolean {
    return this.listed[severity].length < this.limit;
  }

  /** countOmitted counts findings that were found but not built, because the list is full. */
  countOmitted(severity: IssueSeverity, count: number): void {
    this.omitted[severity] += count;
  }

  /** errorCount is every error found, listed or not. */
  get errorCount(): number {
    return this.listed.error.length + this.omitted.error;
  }

  /** all returns the listed findings, errors first. */
  all(): DashboardIssue[] {
    return [...this.listed.error, ...this.listed.warning];
  }

  /** toValidation is the validate answer: `truncated` appears only when something was left out. */
  toValidation(): DashboardValidation {
    const out: DashboardValidation = { valid: this.errorCount === 0, errors: this.listed.error, warnings: this.listed.warning };
    if (this.omitted.error > 0 || this.omitted.warning > 0) out.truncated = { errors: this.omitted.error, warnings: this.omitted.warning };
    return out;
  }
}
