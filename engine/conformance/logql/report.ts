/**
 * Summaries of a LogQL conformance run: counts per file, a plain-text table ending with the
 * line `N passed, N failed` (unsupported evals count as not passed), and JSON for baselines.
 */
import type { EvalOutcome, Outcome } from './runner.js';

/** Counts tallies outcomes. */
export interface Counts {
  passed: number;
  failed: number;
  unsupported: number;
}

/** Summary holds counts per file and overall. */
export interface Summary {
  files: Record<string, Counts>;
  total: Counts;
}

function zero(): Counts {
  return { passed: 0, failed: 0, unsupported: 0 };
}

/** summarize tallies outcomes per file (files in name order). */
export function summarize(outcomes: readonly EvalOutcome[]): Summary {
  const files: Record<string, Counts> = {};
  const total = zero();
  const sorted = [...outcomes].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  for (const o of sorted) {
    const counts = (files[o.file] ??= zero());
    counts[o.outcome as Outcome]++;
    total[o.outcome as Outcome]++;
  }
  return { files, total };
}

/** formatSummary renders the per-file table and the final `N passed, N failed` line. */
export function formatSummary(summary: Summary): string {
  const rows: string[][] = [['file', 'passed', 'failed', 'unsupported']];
  for (const [file, c] of Object.entries(summary.files)) rows.push([file, String(c.passed), String(c.failed), String(c.unsupported)]);
  const t = summary.total;
  rows.push(['total', String(t.passed), String(t.failed), String(t.unsupported)]);
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  const lines = rows.map((r) => r.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  '));
  lines.push(`${t.passed} passed, ${t.failed + t.unsupported} failed`);
  return lines.join('\n');
}

/** formatFailures lists evals that did not pass, with the reason, for --verbose. */
export function formatFailures(outcomes: readonly EvalOutcome[]): string {
  return outcomes
    .filter((o) => o.outcome !== 'passed')
    .map((o) => `${o.outcome.toUpperCase()} ${o.file}:${o.line} ${o.query}\n    ${o.detail.replace(/\n/g, '\n    ')}`)
    .join('\n');
}
