import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../engine/promql/lexer.js';
import { describeToken } from '../../../engine/promql/tokens.js';

/** kinds lists `kind:text` for every token before EOF. */
function kinds(input: string): string[] {
  return tokenize(input)
    .filter((t) => t.kind !== 'EOF')
    .map((t) => `${t.kind}:${t.text}`);
}

/** lexError returns the ERROR token's message and start, or null when lexing succeeds. */
function lexError(input: string): [string, number] | null {
  const last = tokenize(input).at(-1)!;
  return last.kind === 'ERROR' ? [last.text, last.start] : null;
}

describe('lexer', () => {
  it.each([
    ['1', ['NUMBER:1']],
    ['0x1F', ['NUMBER:0x1F']],
    ['.5', ['NUMBER:.5']],
    ['5.', ['NUMBER:5.']],
    ['1e-3', ['NUMBER:1e-3']],
    ['1_000', ['NUMBER:1_000']],
    ['Inf', ['NUMBER:Inf']],
    ['nan', ['NUMBER:nan']],
    ['5m', ['DURATION:5m']],
    ['1h30m', ['DURATION:1h30m']],
    ['2ms', ['DURATION:2ms']],
  ])('reads the number or duration %s', (input, expected) => {
    expect(kinds(input)).toEqual(expected);
  });

  it('distinguishes identifiers, metric identifiers and keywords case-insensitively', () => {
    expect(kinds('foo a:b SUM By bool offset and')).toEqual([
      'IDENTIFIER:foo',
      'METRIC_IDENTIFIER:a:b',
      'AGGREGATOR:SUM',
      'BY:By',
      'BOOL:bool',
      'OFFSET:offset',
      'LAND:and',
    ]);
  });

  it('reads fill as a keyword only before a parenthesis', () => {
    expect(kinds('fill + fill (1)')).toEqual(['IDENTIFIER:fill', 'ADD:+', 'FILL:fill', 'LEFT_PAREN:(', 'NUMBER:1', 'RIGHT_PAREN:)']);
  });

  it('reads keywords inside braces as plain identifiers', () => {
    expect(kinds('{by="x", on!~"y"}')).toEqual([
      'LEFT_BRACE:{',
      'IDENTIFIER:by',
      'EQL:=',
      'STRING:"x"',
      'COMMA:,',
      'IDENTIFIER:on',
      'NEQ_REGEX:!~',
      'STRING:"y"',
      'RIGHT_BRACE:}',
    ]);
  });

  it('reads every operator', () => {
    expect(kinds('+ - * / % ^ == != < <= > >= </ >/ @ atan2').map((k) => k.split(':')[0])).toEqual([
      'ADD',
      'SUB',
      'MUL',
      'DIV',
      'MOD',
      'POW',
      'EQLC',
      'NEQ',
      'LSS',
      'LTE',
      'GTR',
      'GTE',
      'TRIM_UPPER',
      'TRIM_LOWER',
      'AT',
      'ATAN2',
    ]);
  });

  it('reads the three string forms and skips comments', () => {
    expect(kinds('"a\\"b" \'c\' `d\\e` # trailing comment')).toEqual(['STRING:"a\\"b"', "STRING:'c'", 'STRING:`d\\e`']);
  });

  it('reads range and subquery brackets', () => {
    expect(kinds('x[5m:1m]')).toEqual([
      'IDENTIFIER:x',
      'LEFT_BRACKET:[',
      'DURATION:5m',
      'COLON::',
      'DURATION:1m',
      'RIGHT_BRACKET:]',
    ]);
  });

  it('records UTF-16 offsets', () => {
    const tokens = tokenize('{"ü😀"="v"} + x');
    const x = tokens.find((t) => t.kind === 'IDENTIFIER')!;
    expect(x.start).toBe(14);
    expect(x.end).toBe(15);
  });

  it.each([
    ['2.5.', 'bad number or duration syntax: "2.5."', 0],
    ['100..4', 'bad number or duration syntax: "100.."', 0],
    ['0deadbeef', 'bad number or duration syntax: "0de"', 0],
    ['x[5mm]', 'bad number or duration syntax: "5mm"', 2],
    ['.', "unexpected character: '.'", 0],
    ['(1))', "unexpected right parenthesis ')'", 4],
    ['((1)', 'unclosed left parenthesis', 4],
    ['x[5m', 'unclosed left bracket', 4],
    ['1 !~ 1', "unexpected character after '!': '~'", 2],
    ['1 =~ 1', "unexpected character after '=': '~'", 2],
    ['{', 'unexpected end of input inside braces', 1],
    ['foo{a*"b"}', "unexpected character inside braces: '*'", 5],
    ['foo{a!"b"}', "unexpected character after '!' inside braces: '\"'", 5],
    ['"abc', 'unterminated quoted string', 0],
    ['`abc', 'unterminated raw string', 0],
    ['"\\c"', "unknown escape sequence U+0063 'c'", 0],
    ['"\\x."', "illegal character U+002E '.' in escape sequence", 0],
    ['"\\', 'escape sequence not terminated', 0],
    ['"\\ud800"', 'escape sequence is an invalid Unicode code point', 0],
    ['x[5s x 5s]', "unexpected character: 'x', expected ':'", 5],
    ['x["5m"]', 'unexpected character in duration expression: \'"\'', 2],
    ['x[', 'unexpected end of input in duration expression', 2],
    ['x[5m][', 'unexpected end of input in duration expression', 6],
    ['é', "unexpected character: 'é'", 0],
  ])('rejects %j with %j', (input, message, start) => {
    expect(lexError(input)).toEqual([message, start]);
  });

  it('describes tokens the way Prometheus does in messages', () => {
    const describe = (input: string): string => describeToken(tokenize(input)[0]);
    expect(describe('+')).toBe('<op:+>');
    expect(describe('and')).toBe('<op:and>');
    expect(describe('sum')).toBe('<aggr:sum>');
    expect(describe('BY')).toBe('<BY>');
    expect(describe('foo')).toBe('identifier "foo"');
    expect(describe('a:b')).toBe('metric identifier "a:b"');
    expect(describe('"x"')).toBe('string "\\"x\\""');
    expect(describe('"a long string"')).toBe('string "\\"a long st"...');
    expect(describe('42')).toBe('number "42"');
    expect(describe('5m')).toBe('duration "5m"');
    expect(describe('(')).toBe('"("');
    expect(describe('start')).toBe('"start"');
    expect(describe('')).toBe('end of input');
  });
});
