/**
 * Reads the eval cases of the upstream LogQL conformance corpus in place (from
 * ../shared/conformance/logql beside the project root, as the corpus README asks), keeping
 * only what the front-end tests need: the query and whether it is expected to fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sharedPath } from '../../support/sharedBundle.js';

/** CORPUS_DIR is the corpus folder, resolved from this file's location. */
export const CORPUS_DIR = sharedPath('conformance/logql/');

/** ConformanceCase is one `eval` of a `.logqltest` script. */
export interface ConformanceCase {
  file: string;
  line: number;
  query: string;
  rangeQuery: boolean;
  expectFail: boolean;
  /** failMessage is the `msg:` text of `expect fail`, when given. */
  failMessage?: string;
  /** failPattern is the `regex:` of `expect fail`, when given. */
  failPattern?: RegExp;
}

const EVAL_LINE = /^eval (?:(instant) at \S+|range from \S+ to \S+ step \S+) (.+)$/;

/** conformanceCases lists every eval case of every `.logqltest` file, in file order. */
export function conformanceCases(): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const files = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.logqltest'))
    .sort();
  for (const file of files) {
    const lines = readFileSync(CORPUS_DIR + file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = EVAL_LINE.exec(lines[i]);
      if (!m) continue;
      const entry: ConformanceCase = { file, line: i + 1, query: m[2], rangeQuery: m[1] === undefined, expectFail: false };
      for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]); j++) {
        const fail = /^\s+expect fail(?:\s+(msg|regex):\s*(.*?))?\s*$/.exec(lines[j]);
        if (fail) {
          entry.expectFail = true;
          if (fail[1] === 'msg') entry.failMessage = fail[2];
          if (fail[1] === 'regex') entry.failPattern = new RegExp(fail[2]);
        }
      }
      cases.push(entry);
    }
  }
  return cases;
}
