/**
 * Runs Prometheus' PromQL conformance scripts (read in place from ../shared/conformance/promql)
 * and fails if any file's or category's pass count falls below the committed baseline.
 *
 * Regenerate the baseline after an improvement with:
 *   UPDATE_PROMQL_BASELINE=1 npx vitest run test/conformance/promql.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runScriptFiles, summarize, type Summary } from '../../engine/conformance/promql/index.js';
import { describeWithShared, sharedPath } from '../support/sharedBundle.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CORPUS_DIR = sharedPath('conformance/promql');
const BASELINE_PATH = join(HERE, 'promql.baseline.json');

/** FULLY_PASSING_FILES must pass every float eval (the acceptance bar for these files). */
const FULLY_PASSING_FILES = ['literals', 'selectors', 'collision', 'trig_functions', 'range_queries'];

describeWithShared('conformance/promql', 'PromQL conformance corpus', () => {
  const summary: Summary = summarize(runScriptFiles([CORPUS_DIR]));

  if (process.env.UPDATE_PROMQL_BASELINE === '1') {
    writeFileSync(BASELINE_PATH, JSON.stringify(summary, null, 2) + '\n');
  }

  const baseline: Summary = JSON.parse(readFileSync(BASELINE_PATH, 'utf8'));

  it('keeps every file and category at or above the baseline pass count', () => {
    const drops: string[] = [];
    for (const [file, perCategory] of Object.entries(baseline.files)) {
      for (const [category, counts] of Object.entries(perCategory)) {
        const now = summary.files[file]?.[category as keyof typeof perCategory]?.passed ?? 0;
        if (now < counts.passed) drops.push(`${file} ${category}: ${now} < ${counts.passed}`);
      }
    }
    for (const [category, counts] of Object.entries(baseline.categories)) {
      const now = summary.categories[category as keyof typeof summary.categories].passed;
      if (now < counts.passed) drops.push(`(all files) ${category}: ${now} < ${counts.passed}`);
    }
    expect(drops).toEqual([]);
  });

  it('passes every float eval of the core files', () => {
    for (const file of FULLY_PASSING_FILES) {
      const float = summary.files[file]?.float;
      expect(float, file).toBeDefined();
      expect(float!.failed + float!.unsupported, file).toBe(0);
      expect(float!.passed, file).toBeGreaterThan(0);
    }
  });

  it('supports every eval of the corpus: no category reports unsupported', () => {
    for (const [category, counts] of Object.entries(summary.categories)) expect(counts.unsupported, category).toBe(0);
    expect(summary.categories.experimental.failed).toBe(0);
  });

  it('passes at least 95% of the float evals', () => {
    const { passed, failed, unsupported } = summary.categories.float;
    expect(passed / (passed + failed + unsupported)).toBeGreaterThanOrEqual(0.95);
  });
});
