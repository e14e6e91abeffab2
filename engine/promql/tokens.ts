/**
 * PromQL tokens and their vocabulary. Keywords are recognised case-insensitively and the
 * lexer never decides whether a keyword is really a name: that depends on where it stands,
 * which only the parser knows (`sum` is an operator before `(` and a metric name elsewhere).
 */
import { quoteGoString } from '../common/quote.js';
import { utf8LengthExceeds } from '../common/utf8.js';
import { quoteGoTruncated } from './goformat.js';

/** OperatorKind is a token Prometheus classes as an operator (described as `<op:...>`). */
export type OperatorKind =
  | 'ADD'
  | 'SUB'
  | 'MUL'
  | 'DIV'
  | 'MOD'
  | 'POW'
  | 'EQLC'
  | 'NEQ'
  | 'LTE'
  | 'LSS'
  | 'GTE'
  | 'GTR'
  | 'TRIM_UPPER'
  | 'TRIM_LOWER'
  | 'EQL_REGEX'
  | 'NEQ_REGEX'
  | 'LAND'
  | 'LOR'
  | 'LUNLESS'
  | 'ATAN2'
  | 'AT';

/** KeywordKind is a modifier keyword (described as `<by>`). */
export type KeywordKind =
  | 'BOOL'
  | 'BY'
  | 'GROUP_LEFT'
  | 'GROUP_RIGHT'
  | 'FILL'
  | 'FILL_LEFT'
  | 'FILL_RIGHT'
  | 'IGNORING'
  | 'OFFSET'
  | 'SMOOTHED'
  | 'ANCHORED'
  | 'ON'
  | 'WITHOUT';

/** PreprocessorKind is a word that names a time rather than a series (`start()`, `step()`). */
export type PreprocessorKind = 'START' | 'END' | 'STEP' | 'RANGE' | 'MAX_OF' | 'MIN_OF';

/** PunctuationKind is a structural token. */
export type PunctuationKind =
  | 'LEFT_PAREN'
  | 'RIGHT_PAREN'
  | 'LEFT_BRACE'
  | 'RIGHT_BRACE'
  | 'LEFT_BRACKET'
  | 'RIGHT_BRACKET'
  | 'COMMA'
  | 'EQL'
  | 'COLON';

/** TokenKind is every kind of token the lexer emits. */
export type TokenKind =
  | 'EOF'
  | 'ERROR'
  | 'COMMENT'
  | 'IDENTIFIER'
  | 'METRIC_IDENTIFIER'
  | 'NUMBER'
  | 'DURATION'
  | 'STRING'
  | 'AGGREGATOR'
  | OperatorKind
  | KeywordKind
  | PreprocessorKind
  | PunctuationKind;

/**
 * Token is one lexeme: its kind, its source text (for ERROR, the message) and its UTF-16
 * offsets, `end` exclusive.
 */
export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
}

/** KEYWORDS maps the lower-case spelling of every reserved word to its token kind. */
export const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['and', 'LAND'],
  ['or', 'LOR'],
  ['unless', 'LUNLESS'],
  ['atan2', 'ATAN2'],
  ['sum', 'AGGREGATOR'],
  ['avg', 'AGGREGATOR'],
  ['count', 'AGGREGATOR'],
  ['min', 'AGGREGATOR'],
  ['max', 'AGGREGATOR'],
  ['group', 'AGGREGATOR'],
  ['stddev', 'AGGREGATOR'],
  ['stdvar', 'AGGREGATOR'],
  ['topk', 'AGGREGATOR'],
  ['bottomk', 'AGGREGATOR'],
  ['count_values', 'AGGREGATOR'],
  ['quantile', 'AGGREGATOR'],
  ['limitk', 'AGGREGATOR'],
  ['limit_ratio', 'AGGREGATOR'],
  ['offset', 'OFFSET'],
  ['smoothed', 'SMOOTHED'],
  ['anchored', 'ANCHORED'],
  ['by', 'BY'],
  ['without', 'WITHOUT'],
  ['on', 'ON'],
  ['ignoring', 'IGNORING'],
  ['group_left', 'GROUP_LEFT'],
  ['group_right', 'GROUP_RIGHT'],
  ['fill', 'FILL'],
  ['fill_left', 'FILL_LEFT'],
  ['fill_right', 'FILL_RIGHT'],
  ['bool', 'BOOL'],
  ['start', 'START'],
  ['end', 'END'],
  ['step', 'STEP'],
  ['range', 'RANGE'],
  ['max_of', 'MAX_OF'],
  ['min_of', 'MIN_OF'],
  ['inf', 'NUMBER'],
  ['nan', 'NUMBER'],
]);

/** DURATION_KEYWORDS are the words the lexer recognises inside `[...]`. */
export const DURATION_KEYWORDS: ReadonlyMap<string, PreprocessorKind> = new Map<string, PreprocessorKind>([
  ['step', 'STEP'],
  ['range', 'RANGE'],
  ['max_of', 'MAX_OF'],
  ['min_of', 'MIN_OF'],
]);

const OPERATOR_KINDS: ReadonlySet<TokenKind> = new Set<TokenKind>([
  'ADD',
  'SUB',
  'MUL',
  'DIV',
  'MOD',
  'POW',
  'EQLC',
  'NEQ',
  'LTE',
  'LSS',
  'GTE',
  'GTR',
  'TRIM_UPPER',
  'TRIM_LOWER',
  'EQL_REGEX',
  'NEQ_REGEX',
  'LAND',
  'LOR',
  'LUNLESS',
  'ATAN2',
  'AT',
]);

const KEYWORD_KINDS: ReadonlySet<TokenKind> = new Set<TokenKind>([
  'BOOL',
  'BY',
  'GROUP_LEFT',
  'GROUP_RIGHT',
  'FILL',
  'FILL_LEFT',
  'FILL_RIGHT',
  'IGNORING',
  'OFFSET',
  'SMOOTHED',
  'ANCHORED',
  'ON',
  'WITHOUT',
]);

const LITERAL_DESCRIPTIONS: Partial<Record<TokenKind, string>> = {
  IDENTIFIER: 'identifier',
  METRIC_IDENTIFIER: 'metric identifier',
  STRING: 'string',
  NUMBER: 'number',
  DURATION: 'duration',
};

/**
 * describeToken names a token for "unexpected ..." messages exactly as Prometheus does:
 * `<op:+>`, `<aggr:sum>`, `<by>`, `"("`, `identifier "foo"`, `end of input`.
 */
export function describeToken(token: Token): string {
  const { kind, text } = token;
  if (kind === 'EOF') return 'end of input';
  if (OPERATOR_KINDS.has(kind)) return `<op:${text}>`;
  if (kind === 'AGGREGATOR') return `<aggr:${text}>`;
  if (KEYWORD_KINDS.has(kind)) return `<${text}>`;
  const literal = LITERAL_DESCRIPTIONS[kind];
  if (literal !== undefined) {
    if (kind === 'IDENTIFIER' || kind === 'METRIC_IDENTIFIER') return `${literal} ${quoteGoString(text)}`;
    return `${literal} ${quoteShort(text)}`;
  }
  return quoteShort(text);
}

/** quoteShort quotes like Go's Item.String: values longer than 10 bytes are cut with "...". */
function quoteShort(text: string): string {
  if (utf8LengthExceeds(text, 10)) return quoteGoTruncated(text, 10) + '...';
  return quoteGoString(text);
}

/** isAlpha reports an ASCII letter or underscore, the characters that may start a name. */
export function isAlpha(c: number): boolean {
  return c === 0x5f || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** isDigit reports an ASCII digit; other scripts' digits are not digits in PromQL. */
export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** isAlphaNumeric reports a character that may continue a name. */
export function isAlphaNumeric(c: number): boolean {
  return isAlpha(c) || isDigit(c);
}

/** isSpace reports the whitespace PromQL skips between tokens. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
