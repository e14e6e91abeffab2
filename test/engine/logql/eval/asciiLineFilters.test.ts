import { describe, expect, it } from 'vitest';
import { compileAsciiLineTest, compileLineTest } from '../../../../engine/logql/eval/pipeline/lineFilter.js';
import type { LineFilterStage } from '../../../../engine/logql/ast.js';
import { parseChecked } from './helpers.js';
import type { LogSelectorExpr } from '../../../../engine/logql/index.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * Literal line filters test lines held as ASCII bytes of a larger buffer by searching the
 * buffer once from each line's start (LiteralSearch): the answers must be the text test's,
 * for lines asked in order, asked again from an earlier line, and across buffers, with the
 * literal anywhere (several times in a line, across two lines, longer than a line), and for
 * alternatives (`|= "a" or "b"`), each searched so.
 */
function filterOf(query: string): LineFilterStage {
  return (parseChecked(`{app="x"} ${query}`) as LogSelectorExpr).pipeline[0] as LineFilterStage;
}

const WORDS = ['err', 'error', 'or', 'timeout', 'e', 'rr', 'ok', ' ', 'erro', 'r'];

function lineOf(random: SeededRandom): string {
  let line = '';
  const parts = random.int(0, 8);
  for (let k = 0; k < parts; k++) line += random.pick(WORDS);
  return line;
}

describe('literal line filters over ASCII bytes', () => {
  it('answer as the text test does, in order, from an earlier line again, and across buffers', () => {
    for (const query of ['|= "error"', '!= "error"', '|= "rr"', '|= "e"', '!= "timeout"', '|= "erroreerror"', '|= "timeout" or "rr"', '!= "ok" or "erro" or "r"']) {
      const stage = filterOf(query);
      const text = compileLineTest(stage);
      const bytes = compileAsciiLineTest(stage)!;
      expect(bytes, query).toBeDefined();
      for (let seed = 1; seed <= 20; seed++) {
        const random = new SeededRandom(seed);
        const lines = Array.from({ length: 200 }, () => lineOf(random));
        const buffer = Buffer.from(lines.join(''), 'latin1');
        const starts: number[] = [];
        let at = 0;
        for (const line of lines) {
          starts.push(at);
          at += line.length;
        }
        const ask = (i: number) => expect(bytes(buffer, starts[i], starts[i] + lines[i].length), `${query} seed ${seed} line ${i} ${JSON.stringify(lines[i])}`).toBe(text(lines[i]));
        for (let i = 0; i < lines.length; i++) if (random.chance(0.8)) ask(i);
        // Back to earlier lines, then a copy of the buffer (another block).
        for (let n = 0; n < 30; n++) ask(random.int(0, lines.length - 1));
        const copy = Buffer.from(buffer);
        for (let i = 0; i < lines.length; i += 3) expect(bytes(copy, starts[i], starts[i] + lines[i].length)).toBe(text(lines[i]));
      }
    }
  });

  it('leave the filters that read text to it', () => {
    for (const query of ['|~ "err.r"', '|= "a" or ""', '|= ""', '!= ""', '|= "a" or ip("10.0.0.1")', '|= ip("10.0.0.1")', '|> "<_> error"']) {
      expect(compileAsciiLineTest(filterOf(query)), query).toBeUndefined();
    }
  });
});
