/**
 * Summaries of a conformance run: counts per file and category, a plain-text table, and a JSON
 * shape that doubles as the committed baseline format.
 */
import { CATEGORIES, type Category, type EvalOutcome, type Outcome } from './runner.js';

/** Counts tallies outcomes. */
export interface Counts {
  passed: number;
  failed: number;
  unsupported: number;
}

/** Summary is a run's tallies: per file and category, per category, and overall. */
export interface Summary {
  files: Record<string, Partial<Record<Category, Counts>>>;
  categories: Record<Category, Counts>;
  total: Counts;
}

function zero(): Counts {
  return { passed: 0, failed: 0, unsupported: 0 };
}

function bump(counts: Counts, outcome: Outcome): void {
  counts[outcome]++;
}

/** summarize tallies outcomes; files and categories appear in a stable order. */
export function summarize(outcomes: readonly EvalOutcome[]): Summary {
  const files: Summary['files'] = {};
  const categories = Object.fromEntries(CATEGORIES.map((c) => [c, zero()])) as Record<Category, Counts>;
  const total = zero();
  for (const o of [...outcomes].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line))) {
    const perFile = (files[o.file] ??= {});
    bump((perFile[o.category] ??= zero()), o.outcome);
    bump(categories[o.category], o.outcome);
    bump(total, o.outcome);
  }
  return { files, categories, total };
}

/** formatSummary renders the summary table, ending with the line `N passed, N failed`. */
export function formatSummary(summary: Summary): string {
  const rows: string[][] = [['file', 'category', 'passed', 'failed', 'unsupported']];
  for (const [file, perCategory] of Object.entries(summary.files)) {
    for (const category of CATEGORIES) {
      const c = perCategory[category];
      if (c !== undefined) rows.push([file, category, String(c.passed), String(c.failed), String(c.unsupported)]);
    }
  }
  rows.push(['', '', '', '', '']);
  for (const category of CATEGORIES) {
    const c = summary.categories[category];
    rows.push(['(all files)', category, String(c.passed), String(c.failed), String(c.unsupported)]);
  }
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  const lines = rows.map((r) => r.map((cell, col) => (col < 2 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ').trimEnd());
  lines.push(`${summary.total.passed} passed, ${summary.total.failed} failed`);
  return lines.join('\n');
}

/** formatFailures lists failed evals with their reasons, for --verbose output. */
export function formatFailures(outcomes: readonly EvalOutcome[]): string {
  return outcomes
    .filter((o) => o.outcome === 'failed')
    .map((o) => `FAIL ${o.file}.test:${o.line} [${o.category}] ${o.expr}\n    ${o.detail.replace(/\n/g, '\n    ')}`)
    .join('\n');
}
