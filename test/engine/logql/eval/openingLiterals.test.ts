import { describe, expect, it } from 'vitest';
import { openingLineMatch, openingLiterals } from '../../../../engine/logql/eval/pipeline/openingLiterals.js';
import { parseLogQL } from '../../../../engine/logql/index.js';
import type { LineMatch } from '../../../../engine/storage/lineMatch.js';

/**
 * What a pipeline's opening line filters ask of a line's stored bytes: exactly, for a count
 * through nothing else (openingLiterals), and as a condition every kept line meets, for a scan
 * (openingLineMatch), which also takes a `|~` of one fixed string and passes over filters it
 * cannot search for.
 */

const stagesOf = (pipeline: string) => {
  const expr = parseLogQL(`{app="a"} ${pipeline}`);
  if (expr.kind !== 'LogSelector') throw new Error('expected a log selector');
  return expr.pipeline;
};

/** described lists a match's filters as `+a|b` (holds a or b) and `-a|b` (holds neither). */
const described = (match: LineMatch | undefined): string[] | 'none' | undefined => {
  if (match === undefined) return undefined;
  if (match.none) return 'none';
  return match.literals.map((l) => `${l.negate ? '-' : '+'}${l.texts.map((t) => t.toString('utf8')).join('|')}`);
};

describe('the line filters a pipeline opens with', () => {
  it('reads literal filters exactly, up to the first other stage', () => {
    const cases: Array<[string, string[] | 'none' | undefined, number]> = [
      ['|= "a" != "b"', ['+a', '-b'], 2],
      ['|= "a" or "b" != "c" or "d"', ['+a|b', '-c|d'], 2],
      ['|= "a" | json |= "b"', ['+a'], 1],
      ['|= "a" |~ "b" |= "c"', ['+a'], 1],
      ['| json |= "a"', undefined, 0],
      ['|= "" |= "a"', ['+a'], 2],
      ['!= "" |= "a"', 'none', 2],
      ['|= "a" or ip("10.0.0.0/8")', undefined, 0],
    ];
    for (const [pipeline, want, count] of cases) {
      const opening = openingLiterals(stagesOf(pipeline));
      expect(described(opening.match), pipeline).toEqual(want);
      expect(opening.count, pipeline).toBe(count);
    }
  });

  it('asks a scan for every opening filter it can search for, and for nothing that leaves no line out', () => {
    const cases: Array<[string, string[] | 'none' | undefined]> = [
      ['|= "a" != "b"', ['+a', '-b']],
      // A regular expression of one fixed string: a kept line holds it (anchors only say where).
      ['|~ "^GET /api" |= "x"', ['+GET /api', '+x']],
      ['|~ "timeout$"', ['+timeout']],
      // Passed over, the filters after them still read the same line.
      ['|~ "a|b" |= "x"', ['+x']],
      ['!~ "a" |= "x"', ['+x']],
      ['|= ip("10.0.0.0/8") != "y"', ['-y']],
      ['|> "<_> done" |= "x"', ['+x']],
      ['|~ "(?i)error" |= "x"', ['+x']],
      // Nothing after the first other stage: it may change the line.
      ['|= "a" | line_format "{{.b}}" |= "c"', ['+a']],
      ['|~ "a.*b"', undefined],
      ['|~ "a?"', undefined],
      ['|= ""', undefined],
      ['!= ""', 'none'],
      ['| json', undefined],
    ];
    for (const [pipeline, want] of cases) expect(described(openingLineMatch(stagesOf(pipeline))), pipeline).toEqual(want);
  });
});
