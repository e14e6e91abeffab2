import { describe, expect, it } from 'vitest';
import { lexLogQL } from '../../../engine/logql/lexer.js';
import type { Token } from '../../../engine/logql/lexer.js';

function kinds(text: string): Array<[string, string]> {
  return lexLogQL(text).map((t: Token) => [t.type, t.text]);
}

function single(text: string): Token {
  const tokens = lexLogQL(text);
  expect(tokens).toHaveLength(2);
  expect(tokens[1].type).toBe('eof');
  return tokens[0];
}

describe('lexLogQL', () => {
  it('splits operators, preferring two-character ones', () => {
    expect(kinds('{a=~"x"} |= != |~ !~ |> !> | == >= <= > < = !=').map(([type]) => type)).toEqual([
      '{', 'identifier', '=~', 'string', '}', '|=', '!=', '|~', '!~', '|>', '!>', '|', '==', '>=', '<=', '>', '<', '=', '!=', 'eof',
    ]);
  });

  it('decodes double-quoted strings and keeps backtick strings raw', () => {
    expect(single('"a\\tb\\"c"').value).toBe('a\tb"c');
    expect(single('`a\\tb`').value).toBe('a\\tb');
  });

  it('reads a number glued to a duration unit as a duration in milliseconds', () => {
    const cases: Array<[string, number]> = [
      ['5m', 300_000],
      ['1h30m', 5_400_000],
      ['1.5s', 1_500],
      ['500ms', 500],
      ['1d', 86_400_000],
      ['2w', 14 * 86_400_000],
      ['3600000000000ns', 3_600_000],
      ['250us', 0.25],
    ];
    for (const [text, ms] of cases) {
      const token = single(text);
      expect(token.type, text).toBe('duration');
      expect(token.number, text).toBeCloseTo(ms, 9);
    }
  });

  it('reads a negative duration as one token but keeps a minus before a plain number', () => {
    const negative = single('-1h');
    expect(negative.type).toBe('duration');
    expect(negative.number).toBe(-3_600_000);
    expect(kinds('-5')).toEqual([
      ['-', '-'],
      ['number', '5'],
      ['eof', ''],
    ]);
  });

  it('reads byte sizes with SI and IEC units', () => {
    const cases: Array<[string, number]> = [
      ['20MB', 20_000_000],
      ['1KiB', 1024],
      ['1.5KiB', 1536],
      ['3GB', 3e9],
      ['10B', 10],
      ['1M', 1_000_000],
    ];
    for (const [text, bytes] of cases) {
      const token = single(text);
      expect(token.type, text).toBe('bytes');
      expect(token.number, text).toBe(bytes);
    }
  });

  it('reads 1mb as the duration 1m followed by the identifier b, as Loki does', () => {
    expect(kinds('1mb')).toEqual([
      ['duration', '1m'],
      ['identifier', 'b'],
      ['eof', ''],
    ]);
  });

  it('keeps numbers in their Go spelling for the parser to convert', () => {
    expect(kinds('1.5e3 0x10 0o17 .5 1e+21')).toEqual([
      ['number', '1.5e3'],
      ['number', '0x10'],
      ['number', '0o17'],
      ['number', '.5'],
      ['number', '1e+21'],
      ['eof', ''],
    ]);
  });

  it('lexes a whole range as one token with its duration', () => {
    const token = single('[5m]');
    expect(token.type).toBe('range');
    expect(token.number).toBe(300_000);
    expect(single('[1m30s]').number).toBe(90_000);
  });

  it('reports bad ranges with Prometheus wording', () => {
    const minutes = lexLogQL('[5minutes]');
    expect(minutes[0].type).toBe('error');
    expect(minutes[0].value).toBe('unknown unit "minutes" in duration "5minutes"');
    const open = lexLogQL('rate({a="b"}[5)');
    expect(open[open.length - 1].value).toBe("missing closing ']' in duration");
  });

  it('recognises only the known parser flags', () => {
    expect(kinds('--strict --keep-empty')).toEqual([
      ['flag', '--strict'],
      ['flag', '--keep-empty'],
      ['eof', ''],
    ]);
    expect(kinds('--other').map(([type]) => type)).toEqual(['-', '-', 'identifier', 'eof']);
  });

  it('skips # comments to the end of the line', () => {
    expect(kinds('{a="b"} # |= "x"\n| json').map(([type]) => type)).toEqual(['{', 'identifier', '=', 'string', '}', '|', 'identifier', 'eof']);
  });

  it('turns an unterminated string into an error token at its start', () => {
    const tokens = lexLogQL('{foo="bar}');
    const error = tokens[tokens.length - 1];
    expect(error.type).toBe('error');
    expect(error.value).toBe('literal not terminated');
    expect(error.start).toBe(5);
  });

  it('turns an unknown character into an error token', () => {
    const tokens = lexLogQL('{a="b"} @');
    expect(tokens[tokens.length - 1]).toMatchObject({ type: 'error', start: 8, value: 'unexpected character "@"' });
  });

  it('records UTF-16 offsets for every token', () => {
    const tokens = lexLogQL('{é="ü"}  |= "x"');
    expect(tokens.map((t) => [t.start, t.end])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 6],
      [6, 7],
      [9, 11],
      [12, 15],
      [15, 15],
    ]);
  });
});
