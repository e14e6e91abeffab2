import { readOptions, type HarnessOptions } from '../harness/options.js';

/** The command line of `npm run bench:replicas`; README and docs/scaleOut.md list the same options. */
export interface ReplicaBenchOptions extends HarnessOptions {
  /** Query replica counts the dashboard viewers are spread over, one measuring window each. */
  queryReplicas: number[];
  /** Ingest replica counts, one loading phase each (the dataset is split between them). */
  ingestReplicas: number[];
  ingesters: number;
  partitions: number;
  viewers: number;
  /** Seconds of each dashboard window. */
  seconds: number;
  /** Rounds over the query replica counts, ascending then descending. */
  rounds: number;
  /** Concurrent remote-write senders in every ingest phase. */
  senders: number;
}

export const USAGE = `usage: npm run bench:replicas -- [--scale tiny|small|large] [--query-replicas 1,2,4] [--ingest-replicas 1,2]
       [--viewers N] [--seconds S] [--rounds N] [--senders N] [--ingesters N] [--partitions N] [--out DIR]`;

export function parseOptions(argv: string[], defaultOutDir: string): ReplicaBenchOptions {
  const options: ReplicaBenchOptions = { scale: 'small', outDir: defaultOutDir, queryReplicas: [1, 2, 4], ingestReplicas: [1, 2], ingesters: 2, partitions: 8, viewers: 8, seconds: 30, rounds: 2, senders: 8 };
  return readOptions(argv, options, { usage: USAGE, maxWholeNumber: 64 }, (arg) => {
    switch (arg.flag) {
      case '--query-replicas':
        options.queryReplicas = arg.wholeNumbers(arg.value(), true);
        return true;
      case '--ingest-replicas':
        options.ingestReplicas = arg.wholeNumbers(arg.value(), true);
        return true;
      case '--ingesters':
        options.ingesters = arg.wholeNumber(arg.value());
        return true;
      case '--partitions':
        options.partitions = arg.wholeNumber(arg.value());
        return true;
      case '--viewers':
        options.viewers = arg.wholeNumber(arg.value());
        return true;
      case '--seconds':
        options.seconds = arg.wholeNumber(arg.value());
        return true;
      case '--rounds':
        options.rounds = arg.wholeNumber(arg.value());
        return true;
      case '--senders':
        options.senders = arg.wholeNumber(arg.value());
        return true;
      default:
        return false;
    }
  });
}
