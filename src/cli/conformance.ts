import { UsageError, type Command } from './command.js';

/** ConformanceSuite is what each language's conformance module provides, under the same names. */
interface ConformanceSuite<O, S> {
  runScriptFiles(paths: string[]): O[];
  summarize(outcomes: O[]): S;
  formatFailures(outcomes: O[]): string;
  formatSummary(summary: S): string;
}

/**
 * conformanceCommand builds `sluice conformance <language>`: run the upstream test scripts
 * against the engine and print pass counts per file (and, for PromQL, per category). It exits
 * 0 once the run completes, whatever the counts: they are the result, and baseline tests guard
 * against regressions.
 */
function conformanceCommand<O, S>(language: string, origin: string, extension: string, load: () => Promise<ConformanceSuite<O, S>>): Command {
  return {
    name: `conformance ${language}`,
    summary: `Run ${origin} conformance scripts (*${extension}) against the engine and report pass rates.`,
    usage: `sluice conformance ${language} <files or dir> [--verbose] [--json]`,
    options: {
      verbose: { type: 'boolean', description: 'Print every eval that did not pass, with what was expected and what came back.' },
      json: { type: 'boolean', description: 'Print the summary (and with --verbose, every outcome) as JSON.' },
    },
    run: async (values, positionals) => {
      if (positionals.length === 0) throw new UsageError(`expected at least one ${extension} file or directory`);
      const suite = await load();
      const outcomes = suite.runScriptFiles(positionals);
      const summary = suite.summarize(outcomes);
      if (values.json) {
        process.stdout.write(JSON.stringify(values.verbose ? { ...(summary as object), outcomes } : summary, null, 2) + '\n');
        return 0;
      }
      if (values.verbose) {
        const failures = suite.formatFailures(outcomes);
        if (failures !== '') process.stdout.write(failures + '\n\n');
      }
      process.stdout.write(suite.formatSummary(summary) + '\n');
      return 0;
    },
  };
}

// The engine is loaded when a suite runs, not at start-up: the other commands share this entry point.
const engine = () => import('../../engine/index.js');
export const conformancePromql = conformanceCommand('promql', "Prometheus' PromQL", '.test', async () => (await engine()).promqlConformance);
export const conformanceLogql = conformanceCommand('logql', "Loki's LogQL", '.logqltest', async () => (await engine()).logqlConformance);
