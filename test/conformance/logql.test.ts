/**
 * Runs Loki's LogQL conformance scripts (read in place from ../shared/conformance/logql) and
 * fails if any file's pass count falls below the committed baseline, or the overall pass rate
 * below 95%.
 *
 * Regenerate the baseline after an improvement with:
 *   UPDATE_LOGQL_BASELINE=1 npx vitest run test/conformance/logql.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { formatFailures, runScriptFiles, summarize, type Summary } from '../../engine/conformance/logql/index.js';
import { describeWithShared, sharedPath } from '../support/sharedBundle.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS_DIR = sharedPath('conformance/logql');
const BASELINE_PATH = join(HERE, 'logql.baseline.json');

describeWithShared('conformance/logql', 'LogQL conformance corpus', () => {
  const outcomes = runScriptFiles([CORPUS_DIR]);
  const summary: Summary = summarize(outcomes);

  if (process.env.UPDATE_LOGQL_BASELINE === '1') {
    writeFileSync(BASELINE_PATH, JSON.stringify(summary, null, 2) + '\n');
  }

  const baseline: Summary = JSON.parse(readFileSync(BASELINE_PATH, 'utf8'));

  it('keeps every file at or above the baseline pass count', () => {
    const drops: string[] = [];
    for (const [file, counts] of Object.entries(baseline.files)) {
      const now = summary.files[file]?.passed ?? 0;
      if (now < counts.passed) drops.push(`${file}: ${now} < ${counts.passed}`);
    }
    if (drops.length > 0) console.log(formatFailures(outcomes));
    expect(drops).toEqual([]);
  });

  it('passes at least 95% of the evals', () => {
    const { passed, failed, unsupported } = summary.total;
    expect(passed + failed + unsupported).toBeGreaterThan(800);
    expect(passed / (passed + failed + unsupported)).toBeGreaterThanOrEqual(0.95);
  });
});
