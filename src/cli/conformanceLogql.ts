import { formatFailures, formatSummary, runScriptFiles, summarize } from '../../engine/conformance/logql/index.js';
import { UsageError, type Command } from './command.js';

/**
 * conformanceLogql runs Loki's LogQL test scripts (`*.logqltest`) against the engine and
 * prints how many evals pass per file. It exits 0 once the run completes, whatever the
 * counts: they are the result, and a baseline test guards against regressions.
 */
export const conformanceLogql: Command = {
  name: 'conformance logql',
  summary: "Run Loki's LogQL conformance scripts (*.logqltest) against the engine and report pass rates.",
  usage: 'sluice conformance logql <files or dir> [--verbose] [--json]',
  options: {
    verbose: { type: 'boolean', description: 'Print every eval that did not pass, with the reason.' },
    json: { type: 'boolean', description: 'Print the summary (and with --verbose, every outcome) as JSON.' },
  },
  run: async (values, positionals) => {
    if (positionals.length === 0) throw new UsageError('expected at least one .logqltest file or directory');
    const outcomes = runScriptFiles(positionals);
    const summary = summarize(outcomes);
    if (values.json) {
      const body = values.verbose ? { ...summary, outcomes } : summary;
      process.stdout.write(JSON.stringify(body, null, 2) + '\n');
      return 0;
    }
    if (values.verbose) {
      const failures = formatFailures(outcomes);
      if (failures !== '') process.stdout.write(failures + '\n\n');
    }
    process.stdout.write(formatSummary(summary) + '\n');
    return 0;
  },
};
