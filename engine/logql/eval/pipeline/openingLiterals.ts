/**
 * The line filters a pipeline opens with, as a LineMatch a store applies to its stored bytes
 * (lineMatch.ts). They read the line as stored, before any stage changes it, and a line failing
 * one is dropped by the pipeline, so a store may leave such lines out unread: a count whose
 * pipeline is only literal filters never reads a line, and other queries read only the lines
 * that pass.
 */
import type { LineFilterStage, PipelineStage } from '../../ast.js';
import { compileRegex } from '../../../regex/index.js';
import { literalLineMatch, type LineMatch } from '../../../storage/lineMatch.js';

/** OpeningLiterals is how many stages a pipeline opens with are literal substring filters (`count`), and those filters (undefined when none is). */
export interface OpeningLiterals {
  match: LineMatch | undefined;
  count: number;
}

/**
 * openingLiterals reads the literal substring filters (`|= "a"`, `!= "b"`, `|= "c" or "d"`) a
 * pipeline opens with, up to the first stage that is anything else: a line passes them exactly
 * when the match says so, so a count through nothing else needs only the match.
 */
export function openingLiterals(stages: readonly PipelineStage[]): OpeningLiterals {
  const filters: Array<{ texts: string[]; negate: boolean }> = [];
  for (const stage of stages) {
    if (stage.kind !== 'LineFilter') break;
    const texts = literalTexts(stage);
    if (texts === undefined) break;
    filters.push({ texts, negate: stage.op === '!=' });
  }
  return { match: filters.length === 0 ? undefined : literalLineMatch(filters), count: filters.length };
}

/**
 * MAX_REGEX_TEXTS bounds the strings a regular expression's filter is searched for: one native
 * search each over the stored bytes. On the peers' 1M JSON lines (a raw search through a trace
 * id, two workers) `|~ "<id>"` took 65 ms searched against 85 through the expression, while two
 * strings took 90 against 87 and three 120: the expression's own matcher finds a few
 * alternatives in one pass.
 */
const MAX_REGEX_TEXTS = 1;

/**
 * openingLineMatch is what the filters a pipeline opens with (every line filter before its
 * first other stage) ask of a line's bytes, or undefined when that leaves no line out. Besides
 * the literal ones, a `|~` whose expression matches only one fixed string (`timeout`, `^GET
 * /api`) needs the line to hold it: every match is that string somewhere in the line, anchors
 * only narrowing where. The filter itself still decides each line read; the match only spares
 * lines that cannot pass. Other filters (`!~`, patterns, `ip()`, other expressions) are passed
 * over: filters in a row all read the same line, so those after them still hold.
 */
export function openingLineMatch(stages: readonly PipelineStage[]): LineMatch | undefined {
  const filters: Array<{ texts: string[]; negate: boolean }> = [];
  for (const stage of stages) {
    if (stage.kind !== 'LineFilter') break;
    const texts = literalTexts(stage) ?? regexTexts(stage);
    if (texts !== undefined) filters.push({ texts, negate: stage.op === '!=' });
  }
  if (filters.length === 0) return undefined;
  const match = literalLineMatch(filters);
  return match.none || match.literals.length > 0 ? match : undefined;
}

/** literalTexts are the texts of a substring filter of literals only (`|=`, `!=`), else undefined (regex, pattern, ip()). */
function literalTexts(stage: LineFilterStage): string[] | undefined {
  if (stage.op !== '|=' && stage.op !== '!=') return undefined;
  const texts: string[] = [];
  for (const value of stage.values) {
    if (value.kind !== 'LineFilterLiteral') return undefined;
    texts.push(value.value);
  }
  return texts;
}

/**
 * regexTexts are the fixed strings a `|~` filter's expressions can match, one of which a
 * passing line holds; undefined when one of its expressions matches more (or the empty string,
 * which every line holds) or the strings are more than MAX_REGEX_TEXTS.
 */
function regexTexts(stage: LineFilterStage): string[] | undefined {
  if (stage.op !== '|~') return undefined;
  const texts: string[] = [];
  for (const value of stage.values) {
    if (value.kind !== 'LineFilterLiteral') return undefined;
    const set = compileRegex(value.value).literalSet;
    if (set === undefined || set.includes('') || texts.length + set.length > MAX_REGEX_TEXTS) return undefined;
    texts.push(...set);
  }
  return texts;
}
