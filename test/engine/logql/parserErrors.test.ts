import { describe, expect, it } from 'vitest';
import { MAX_QUERY_LENGTH, parseLogQL } from '../../../engine/logql/index.js';
import { parseError, textFrom } from './helpers.js';

/**
 * Each case: query, the message after `line:col: parse error: `, and how the query text
 * continues from the error position (empty when the error is at the end of the input).
 */
const SYNTAX_ERRORS: Array<[string, string, string]> = [
  // Selectors.
  ['{foo="bar"', 'syntax error: unexpected end of input, expecting } or ,', ''],
  ['{foo="bar}', 'literal not terminated', '"bar}'],
  ['{foo=bar}', 'syntax error: unexpected IDENTIFIER "bar", expecting STRING', 'bar}'],
  ['{foo>"bar"}', 'syntax error: unexpected >, expecting = or != or =~ or !~', '>"bar"}'],
  ['{foo="bar"} "foo"', 'syntax error: unexpected STRING', '"foo"'],
  ['{foo="bar"} foo', 'syntax error: unexpected IDENTIFIER "foo"', 'foo'],
  ['{foo=~"("}', 'error parsing regexp: missing closing ): `(`', '("}'],
  ['{foo="a\\qb"}', 'unknown escape sequence \\q', '\\qb"}'],
  ['#{app="foo"} | json', 'syntax error: unexpected end of input', ''],
  // Line filters.
  ['{foo="bar"} |~', 'syntax error: unexpected end of input, expecting STRING or ip', ''],
  ['{a="b"} |~ "a\\\\qb"', 'error parsing regexp: invalid escape sequence: `\\q`', '\\\\qb"'],
  // Checked by the engine that runs them: these used to pass and then fail in the worker.
  ['{a="b"} |~ "(a{2}){1000}"', 'error parsing regexp: invalid repeat count: `{1000}`', '{1000}"'],
  ['{a="b"} |~ `\\Q\\E*`', 'error parsing regexp: missing argument to repetition operator: `*`', '*`'],
  [`{a="b"} |~ \`${'\\pL{1000}'.repeat(101)}\``, `error parsing regexp: expression too large: \`${'\\pL{1000}'.repeat(101)}\``, `${'\\pL{1000}'.repeat(101)}\``],
  ['{a="b"} |= ip("notanip")', 'ip: invalid pattern: "notanip"', '"notanip")'],
  ['{a="b"} |> "<verb> /api"', "named captures are not allowed: found '<verb>'", '<verb> /api"'],
  ['{a="b"} |> "<_><_>"', "found consecutive capture '<_><_>': invalid expression", '<_><_>"'],
  // Parsers.
  ['{a="b"} | json bad="user["', 'cannot parse expression [user[]: syntax error: unexpected end of expression', '"'],
  ['{a="b"} | json a=b', 'syntax error: unexpected IDENTIFIER "b", expecting STRING', 'b'],
  ['{a="b"} | regexp `nocapture`', 'invalid regexp parser: at least one named capture must be supplied', '`nocapture`'],
  ['{a="b"} | regexp `(?P<x>.)(?P<x>.)`', "invalid regexp parser: duplicate extracted label name 'x'", '`(?P<x>.)(?P<x>.)`'],
  ['{a="b"} | regexp `(`', 'invalid regexp parser: error parsing regexp: missing closing ): `(`', '(`'],
  ['{a="b"} | regexp', 'syntax error: unexpected end of input, expecting STRING', ''],
  ['{a="b"} | pattern `no captures`', 'invalid pattern parser: at least one capture is required', 'no captures`'],
  ['{a="b"} | pattern "<a> <a>"', 'invalid pattern parser: duplicate capture name (a): invalid expression', '<a>"'],
  ['{a="b"} | logfmt --nope', 'syntax error: unexpected -', '-nope'],
  // Label filters.
  ['{a="b"} | code == "200"', 'syntax error: unexpected STRING, expecting NUMBER or DURATION or BYTES', '"200"'],
  ['{a="b"} | addr == ip("10.0.0.0/8")', 'syntax error: unexpected ip, expecting NUMBER or DURATION or BYTES', 'ip("10.0.0.0/8")'],
  ['{a="b"} | addr =~ ip("10.0.0.0/8")', 'syntax error: unexpected ip, expecting STRING', 'ip("10.0.0.0/8")'],
  ['{a="b"} | addr = ip("bogus")', 'ip: invalid pattern: "bogus"', '"bogus")'],
  ['{a="b"} | code > 0x10', 'unable to parse literal as a float: strconv.ParseFloat: parsing "0x10": invalid syntax', '0x10'],
  ['{a="b"} | code > 0o17', 'unable to parse literal as a float: strconv.ParseFloat: parsing "0o17": invalid syntax', '0o17'],
  ['{a="b"} | x=~"("', 'error parsing regexp: missing closing ): `(`', '("'],
  ['{a="b"} | (x="1"', 'syntax error: unexpected end of input, expecting )', ''],
  ['{a="b"} | x', 'syntax error: unexpected IDENTIFIER "x"', 'x'],
  ['{a="b"} | 5', 'syntax error: unexpected NUMBER "5"', '5'],
  // Formatting and label stages.
  ['{a="b"} | line_format "{{ nosuchfunc }}"', 'invalid line template: function "nosuchfunc" not defined', 'nosuchfunc }}"'],
  ['{a="b"} | label_format x="{{"', "invalid template for label 'x': unclosed action", '{{"'],
  ['{a="b"} | line_format "\\"{{ .x"', 'invalid line template: unclosed action', '{{ .x"'],
  ['{a="b"} | label_format x', 'syntax error: unexpected end of input, expecting =', ''],
  ['{a="b"} | drop', 'syntax error: unexpected end of input, expecting IDENTIFIER', ''],
  ['count_over_time({app="a"} | drop [1m])', 'syntax error: unexpected RANGE, expecting IDENTIFIER', '[1m])'],
  ['count_over_time({app="a"} | keep [1m])', 'syntax error: unexpected RANGE, expecting IDENTIFIER', '[1m])'],
  // Unwrap and ranges.
  ['{a="b"} | unwrap x', 'syntax error: unexpected unwrap', 'unwrap x'],
  ['sum_over_time({a="b"} | unwrap x | json [1m])', 'syntax error: unexpected json', 'json [1m])'],
  ['sum_over_time({a="b"} | unwrap x |= "y" [1m])', 'syntax error: unexpected |=, expecting RANGE', '|= "y" [1m])'],
  ['rate({a="b"})', 'syntax error: unexpected ), expecting RANGE', ')'],
  ['rate({a="b"}[1m][1m])', 'syntax error: unexpected RANGE, expecting )', '[1m])'],
  ['rate({ foo = "bar" }[5minutes])', 'unknown unit "minutes" in duration "5minutes"', '5minutes])'],
  ['rate({ foo = "bar" }[5)', "missing closing ']' in duration", '[5)'],
  ['min({ foo = "bar" }[5m])', 'syntax error: unexpected RANGE, expecting )', '[5m])'],
  ['{a="b"}[5m]', 'syntax error: unexpected RANGE', '[5m]'],
  ['count_over_time({app="a"} | logfmt | size > 1mb [1m])', 'syntax error: unexpected IDENTIFIER "b", expecting RANGE', 'b [1m])'],
  ['rate({a="b"}[1m] offset)', 'syntax error: unexpected ), expecting DURATION', ')'],
  // Aggregations.
  ['unk({ foo = "bar" }[5m])', 'syntax error: unexpected IDENTIFIER "unk"', 'unk('],
  ['quantile_over_time(-0.1, {a="b"} | unwrap v [1m])', 'syntax error: unexpected -, expecting NUMBER or { or (', '-0.1'],
  ['quantile_over_time(foo, {a="b"} | unwrap v [1m])', 'syntax error: unexpected IDENTIFIER "foo", expecting NUMBER or { or (', 'foo,'],
  ['vector(abc)', 'syntax error: unexpected IDENTIFIER "abc", expecting NUMBER', 'abc)'],
  ['vector(count_over_time({app="a"}[1m]))', 'syntax error: unexpected count_over_time, expecting NUMBER', 'count_over_time('],
  ['count without (rate({a="b"}[15s]))', 'syntax error: unexpected rate, expecting IDENTIFIER or )', 'rate('],
  ['sum by (a) (rate({a="b"}[1m])) by (b)', 'syntax error: unexpected by', 'by (b)'],
  ['sum({a="b"})', 'syntax error: unexpected log query, expecting metric expression', '{a="b"})'],
  ['sum(rate({a="b"}[1m]), 2)', 'syntax error: unexpected ,, expecting )', ', 2)'],
  ['label_replace(rate({ foo = "bar" }[5m]),"")', 'syntax error: unexpected ), expecting ,', ')'],
  ['label_replace(rate({a="b"}[5m]), "a", "b", "c", "(")', 'invalid regex in label_replace: error parsing regexp: missing closing ): `(`', '(")'],
  // Binary expressions.
  ['bool 1 > 1', 'syntax error: unexpected bool', 'bool'],
  ['1 +', 'syntax error: unexpected end of input', ''],
  ['1 + on', 'syntax error: unexpected end of input, expecting (', ''],
  ['- rate({a="b"}[1m])', 'syntax error: unexpected -', '- rate'],
  ['(1 + 2', 'syntax error: unexpected end of input, expecting )', ''],
];

describe('parseLogQL syntax errors', () => {
  it.each(SYNTAX_ERRORS)('%s', (query, message, at) => {
    const err = parseError(query);
    expect(err.message).toMatch(/^\d+:\d+: parse error: /);
    expect(err.message.replace(/^\d+:\d+: parse error: /, '')).toBe(message);
    const rest = textFrom(query, err);
    if (at === '') expect(rest).toBe('');
    else expect(rest.startsWith(at), `error points at ${JSON.stringify(rest)}`).toBe(true);
  });

  it('reports line and column of multi-line queries', () => {
    const err = parseError('sum(\n  rate({a="b"}[1m])\n  +)');
    expect(err.message).toBe('3:4: parse error: syntax error: unexpected )');
    expect(err.position).toEqual({ start: 28, end: 29 });
  });

  it('points inside an escaped string at the offending template character', () => {
    const query = '{a="b"} | line_format "\\t{{ .a | nosuch }}"';
    const err = parseError(query);
    expect(textFrom(query, err)).toBe('nosuch }}"');
  });

  it('reports the first error in the text even when a later token cannot be lexed', () => {
    const err = parseError('{a="b"} foo @');
    expect(err.message).toBe('1:9: parse error: syntax error: unexpected IDENTIFIER "foo"');
  });

  it('rejects queries longer than Loki accepts', () => {
    const err = parseError(`{a="${'x'.repeat(MAX_QUERY_LENGTH)}"}`);
    expect(err.message).toContain('input size too long');
  });

  it('throws nothing for a valid query', () => {
    expect(() => parseLogQL('sum(rate({a="b"}[1m]))')).not.toThrow();
  });
});
