import { isScaleName, type ScaleName } from '../peers/scales.js';

/** The command line of `npm run bench:replicas`; README and docs/scaleOut.md list the same options. */
export interface ReplicaBenchOptions {
  scale: ScaleName;
  outDir: string;
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
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const positiveInteger = (v: string): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`${flag} takes whole numbers from 1 to 64, not ${v}\n${USAGE}`);
      return n;
    };
    const counts = (v: string): number[] => {
      const list = v.split(',').map(positiveInteger);
      if (new Set(list).size !== list.length) throw new Error(`${flag} lists a count twice: ${v}\n${USAGE}`);
      return list;
    };
    switch (flag) {
      case '--scale': {
        const v = value();
        if (!isScaleName(v)) throw new Error(`unknown scale ${v}\n${USAGE}`);
        options.scale = v;
        break;
      }
      case '--out':
        options.outDir = value();
        break;
      case '--query-replicas':
        options.queryReplicas = counts(value());
        break;
      case '--ingest-replicas':
        options.ingestReplicas = counts(value());
        break;
      case '--ingesters':
        options.ingesters = positiveInteger(value());
        break;
      case '--partitions':
        options.partitions = positiveInteger(value());
        break;
      case '--viewers':
        options.viewers = positiveInteger(value());
        break;
      case '--seconds':
        options.seconds = positiveInteger(value());
        break;
      case '--rounds':
        options.rounds = positiveInteger(value());
        break;
      case '--senders':
        options.senders = positiveInteger(value());
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
