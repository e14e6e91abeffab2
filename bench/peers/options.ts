import { isScaleName, type ScaleName } from './scales.js';

/** The command line of `npm run bench:peers`; README lists the same options. */
export const SUITE_NAMES = ['queries', 'concurrency', 'ingest', 'logs'] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface PeerBenchOptions {
  scale: ScaleName;
  repetitions: number;
  outDir: string;
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
   * keepDir keeps the loaded data there for later runs at the same scale, and uses what an
   * earlier run kept there (see keptData.ts).
   */
  keepDir?: string;
}

export const USAGE = `usage: npm run bench:peers -- [--scale tiny|small|large] [--reps N] [--out DIR]
       [--suites queries,concurrency,ingest,logs] [--viewers 1,10,50,200] [--concurrency-seconds S] [--results-cache-rows] [--no-install]
       [--baseline DIR [--baseline-rounds N]] [--keep DIR]`;

export function parseOptions(argv: string[], defaultOutDir: string): PeerBenchOptions {
  const options: PeerBenchOptions = { scale: 'small', repetitions: 5, outDir: defaultOutDir, install: true, suites: [...SUITE_NAMES], concurrencySeconds: 10, viewers: [1, 10, 50, 200], resultsCacheRows: false, baselineRounds: 2 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const positiveInteger = (v: string): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive whole number, not ${v}\n${USAGE}`);
      return n;
    };
    switch (flag) {
      case '--scale': {
        const v = value();
        if (!isScaleName(v)) throw new Error(`unknown scale ${v}\n${USAGE}`);
        options.scale = v;
        break;
      }
      case '--reps':
        options.repetitions = positiveInteger(value());
        break;
      case '--out':
        options.outDir = value();
        break;
      case '--no-install':
        options.install = false;
        break;
      case '--results-cache-rows':
        options.resultsCacheRows = true;
        break;
      case '--suites': {
        const names = value().split(',');
        for (const n of names) if (!(SUITE_NAMES as readonly string[]).includes(n)) throw new Error(`unknown suite ${n}\n${USAGE}`);
        options.suites = names as SuiteName[];
        break;
      }
      case '--viewers':
        options.viewers = value().split(',').map(positiveInteger);
        break;
      case '--baseline':
        options.baseline = value();
        break;
      case '--baseline-rounds':
        options.baselineRounds = positiveInteger(value());
        break;
      case '--keep':
        options.keepDir = value();
        break;
      case '--concurrency-seconds':
        options.concurrencySeconds = positiveInteger(value());
        break;
      case '--help':
      case '-h':
        throw new Error(USAGE);
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  return options;
}
