import { isScaleName, type ScaleName } from '../peers/scales.js';

/**
 * HarnessOptions are the options every macro harness takes: the dataset scale shared by the
 * peer and replica benchmarks and the directory the report goes to.
 */
export interface HarnessOptions {
  scale: ScaleName;
  outDir: string;
}

/** OptionArgument is what a harness's own flag reader gets for the flag at hand. */
export interface OptionArgument {
  readonly flag: string;
  /** value takes the next argument as the flag's value; a flag at the end of the line is an error. */
  value(): string;
  /** wholeNumber reads one count within the harness's range. */
  wholeNumber(text: string): number;
  /** wholeNumbers reads a comma-separated list of counts; `distinct` refuses one listed twice. */
  wholeNumbers(text: string, distinct?: boolean): number[];
  /** fail ends the reading with `message` and the usage text. */
  fail(message: string): never;
}

export interface OptionRules {
  usage: string;
  /** maxWholeNumber bounds every count (a replica count, say); without it any positive count goes. */
  maxWholeNumber?: number;
}

/**
 * readOptions walks a harness's command line into `options`, which hold the defaults. `--scale`,
 * `--out` and `--help` are read here; every other flag goes to `readFlag`, which returns false
 * for a flag it does not know. Every mistake throws with the usage text, which the harness
 * prints on its way out.
 */
export function readOptions<T extends HarnessOptions>(argv: string[], options: T, rules: OptionRules, readFlag: (arg: OptionArgument) => boolean): T {
  const { usage, maxWholeNumber } = rules;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const fail = (message: string): never => {
      throw new Error(`${message}\n${usage}`);
    };
    const wholeNumber = (text: string): number => {
      const n = Number(text);
      if (Number.isInteger(n) && n >= 1 && (maxWholeNumber === undefined || n <= maxWholeNumber)) return n;
      return fail(maxWholeNumber === undefined ? `${flag} takes a positive whole number, not ${text}` : `${flag} takes whole numbers from 1 to ${maxWholeNumber}, not ${text}`);
    };
    const arg: OptionArgument = {
      flag,
      value: () => argv[++i] ?? fail(`${flag} needs a value`),
      wholeNumber,
      wholeNumbers: (text, distinct = false) => {
        const list = text.split(',').map(wholeNumber);
        if (distinct && new Set(list).size !== list.length) fail(`${flag} lists a count twice: ${text}`);
        return list;
      },
      fail,
    };
    switch (flag) {
      case '--scale': {
        const v = arg.value();
        if (!isScaleName(v)) return fail(`unknown scale ${v}`);
        options.scale = v;
        break;
      }
      case '--out':
        options.outDir = arg.value();
        break;
      case '--help':
      case '-h':
        throw new Error(usage);
      default:
        if (!readFlag(arg)) fail(`unknown option ${flag}`);
    }
  }
  return options;
}
