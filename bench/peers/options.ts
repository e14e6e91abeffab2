import { readOptions, type HarnessOptions } from '../harness/options.js';

/** The command line of `npm run bench:peers`; README lists the same options. */
export const SUITE_NAMES = ['queries', 'concurrency', 'ingest', 'logs'] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface PeerBenchOptions extends HarnessOptions {
  repetitions: number;
  /** quickRepetitions is how many runs a quick query case gets (querySuite.ts, QUICK_CASE_MS); at least `repetitions`. */
  quickRepetitions: number;
  install: boolean;
  suites: SuiteName[];
  /** Seconds each concurrency level runs against each system. */
  concurrencySeconds: number;
  viewers: number[];
  /**
   * resultsCacheRows adds "Sluice (results cache)" rows to the concurrency suite: Sluice restarted
   * with its results cache on, which the main rows (and the peers) run without.
   */
  resultsCacheRows: boolean;
  /**
   * baseline is another checkout of Sluice, built (`npm run build`), to compare this one with
   * under the same load: after the suite, the concurrency levels run `baselineRounds` times
   * more, alternating the baseline's server and this one's over the same data directory, so
   * both meet the machine in the same state. Its rows are "Sluice (baseline build)".
   */
  baseline?: string;
  baselineRounds: number;
  /**
   * nodeArgs go to node before this checkout's server (never the baseline's), for example a V8
   * flag to weigh against `--baseline` pointing at the same build, or `--cpu-prof`.
   */
  nodeArgs: string[];
  /**
   * keepDir keeps the loaded data there for later runs at the same scale, and uses what an
   * earlier run kept there (see keptData.ts).
   */
  keepDir?: string;
}

export const USAGE = `usage: npm run bench:peers -- [--scale tiny|small|large] [--reps N] [--quick-reps N] [--out DIR]
       [--suites queries,concurrency,ingest,logs] [--viewers 1,2,5,10,50,200] [--concurrency-seconds S] [--results-cache-rows] [--no-install]
       [--baseline DIR [--baseline-rounds N]] [--node-args "ARGS"] [--keep DIR]`;

export function parseOptions(argv: string[], defaultOutDir: string): PeerBenchOptions {
  const options: PeerBenchOptions = { scale: 'small', repetitions: 5, quickRepetitions: 25, outDir: defaultOutDir, install: true, suites: [...SUITE_NAMES], concurrencySeconds: 10, viewers: [1, 2, 5, 10, 50, 200], resultsCacheRows: false, baselineRounds: 2, nodeArgs: [] };
  return readOptions(argv, options, { usage: USAGE }, (arg) => {
    switch (arg.flag) {
      case '--reps':
        options.repetitions = arg.wholeNumber(arg.value());
        return true;
      case '--quick-reps':
        options.quickRepetitions = arg.wholeNumber(arg.value());
        return true;
      case '--no-install':
        options.install = false;
        return true;
      case '--results-cache-rows':
        options.resultsCacheRows = true;
        return true;
      case '--suites': {
        const names = arg.value().split(',');
        for (const n of names) if (!(SUITE_NAMES as readonly string[]).includes(n)) arg.fail(`unknown suite ${n}`);
        options.suites = names as SuiteName[];
        return true;
      }
      case '--viewers':
        options.viewers = arg.wholeNumbers(arg.value());
        return true;
      case '--baseline':
        options.baseline = arg.value();
        return true;
      case '--baseline-rounds':
        options.baselineRounds = arg.wholeNumber(arg.value());
        return true;
      case '--node-args':
        options.nodeArgs = arg.value().split(/\s+/).filter((a) => a !== '');
        return true;
      case '--keep':
        options.keepDir = arg.value();
        return true;
      case '--concurrency-seconds':
        options.concurrencySeconds = arg.wholeNumber(arg.value());
        return true;
      default:
        return false;
    }
  });
}
