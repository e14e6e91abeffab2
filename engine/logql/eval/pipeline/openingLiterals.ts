/**
 * The literal line filters a pipeline opens with (`|= "a"`, `!= "b"`, `|= "c" or "d"`), as a
 * LineMatch a store applies to its stored bytes (lineMatch.ts). They read the line as stored,
 * before any stage changes it, and a line failing one is dropped by the pipeline, so a store
 * may leave such lines out unread: a count whose pipeline is nothing else never reads a line,
 * and other queries read only the lines that pass.
 */
import type { PipelineStage } from '../../ast.js';
import { literalLineMatch, type LineMatch } from '../../../storage/lineMatch.js';

/** OpeningLiterals is how many stages a pipeline opens with are literal line filters (`count`), and those filters (undefined when none is). */
export interface OpeningLiterals {
  match: LineMatch | undefined;
  count: number;
}

export function openingLiterals(stages: readonly PipelineStage[]): OpeningLiterals {
  const filters: Array<{ texts: string[]; negate: boolean }> = [];
  for (const stage of stages) {
    const texts = literalTexts(stage);
    if (texts === undefined || stage.kind !== 'LineFilter') break;
    filters.push({ texts, negate: stage.op === '!=' });
  }
  return { match: filters.length === 0 ? undefined : literalLineMatch(filters), count: filters.length };
}

/**
 * openingLineMatch is the LineMatch of a pipeline's opening literal filters, or undefined when
 * they would leave no line out (there are none, or each holds an empty text and so every line).
 */
export function openingLineMatch(stages: readonly PipelineStage[]): LineMatch | undefined {
  const { match } = openingLiterals(stages);
  return match !== undefined && (match.none || match.literals.length > 0) ? match : undefined;
}

/** literalTexts are the texts of a substring filter of literals only (`|=`, `!=`), else undefined (regex, pattern, ip()). */
function literalTexts(stage: PipelineStage): string[] | undefined {
  if (stage.kind !== 'LineFilter' || (stage.op !== '|=' && stage.op !== '!=')) return undefined;
  const texts: string[] = [];
  for (const value of stage.values) {
    if (value.kind !== 'LineFilterLiteral') return undefined;
    texts.push(value.value);
  }
  return texts;
}
