import type { DashboardIssue } from './dashboards.js';

/** IssueList shows the server's findings on a spec, each at its JSON path. */
export function IssueList({ issues }: { issues: DashboardIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <ul class="issues" aria-label="Findings">
      {issues.map((issue, i) => (
        <li key={i} class={`issue ${issue.severity}`} data-path={issue.path}>
          <code class="issue-path">{issue.path}</code> <span class="issue-severity">{issue.severity}</span> {issue.message}
        </li>
      ))}
    </ul>
  );
}
