import { describe, expect, it } from 'vitest';
import { runPipeline } from './helpers.js';

function labelsOf(stages: string, line: string, tags?: Record<string, string>): Record<string, string> {
  const out = runPipeline(stages, line, tags);
  if (out === null) throw new Error('line dropped');
  return out.labels;
}

describe('json', () => {
  it('flattens nested objects and converts scalars, skipping arrays and nulls', () => {
    expect(labelsOf('| json', '{"lvl":"warn","obj":{"x":1,"y":{"z":2}},"ok":true,"no":false,"nil":null,"arr":[1,2],"f":1.5}')).toEqual({
      app: 'test',
      lvl: 'warn',
      obj_x: '1',
      obj_y_z: '2',
      ok: 'true',
      no: 'false',
      f: '1.5',
    });
  });

  it('sanitises keys, keeps the first duplicate and renames clashes with _extracted', () => {
    expect(labelsOf('| json', '{"app":"parsed","a.b":1,"dup":"first","dup":"second","9x":2," sp ":3,"é":4}')).toEqual({
      app: 'test',
      app_extracted: 'parsed',
      a_b: '1',
      dup: 'first',
      _9x: '2',
      sp: '3',
      _: '4',
    });
  });

  it('decodes escapes and turns replacement characters into spaces', () => {
    expect(labelsOf('| json', '{"m":"a\\nb\\u00e9\\ud83d\\ude00","bad":"x\\udc00y","raw":"p\ufffdq"}')).toEqual({
      app: 'test',
      m: 'a\nbé😀',
      bad: 'x y',
      raw: 'p q',
    });
  });

  it.each([
    ['broken', "Value looks like object, but can't find closing '}' symbol"],
    ['{"a":1', "Value looks like object, but can't find closing '}' symbol"],
    ['{"a":"unterminated}', 'Value is string, but can\'t find closing \'"\' symbol'],
    ['{"a":[1,2}', "Value is array, but can't find closing ']' symbol"],
    ['{"a" 1}', 'Malformed JSON error'],
    ['', "Value looks like object, but can't find closing '}' symbol"],
  ])('marks malformed %j with JSONParserErr', (line, details) => {
    const labels = labelsOf('| json', line);
    expect(labels.__error__).toBe('JSONParserErr');
    expect(labels.__error_details__).toBe(details);
  });

  it('keeps fields parsed before a syntax error', () => {
    const labels = labelsOf('| json', '{"a":1,"b":"x" "c":2}');
    expect(labels).toMatchObject({ a: '1', b: 'x', __error__: 'JSONParserErr' });
  });

  it('extracts paths, with a missing path giving an empty label', () => {
    const line = '{"user":{"id":"u1","tags":["x","y"]},"n":null,"o":{"k":1},"list":[1,2]}';
    expect(labelsOf('| json who="user.id", tag="user.tags[1]", missing="user.age", n="n", o="o", list="list", q=`["user"]["id"]`', line)).toEqual({
      app: 'test',
      who: 'u1',
      tag: 'y',
      missing: '',
      n: '',
      o: '{"k":1}',
      list: '[1,2]',
      q: 'u1',
    });
  });

  it('extracts into _extracted when a stream label has the name, and flags non-JSON lines', () => {
    expect(labelsOf('| json app="a"', '{"a":"v"}')).toEqual({ app: 'test', app_extracted: 'v' });
    expect(labelsOf('| json a="a"', 'plain text')).toEqual({ app: 'test', __error__: 'JSONParserErr' });
  });

  it('parses a 1 MB line', () => {
    const big = 'v'.repeat(1 << 20);
    expect(labelsOf('| json', `{"big":"${big}","n":1}`)).toEqual({ app: 'test', big, n: '1' });
  });
});

describe('logfmt', () => {
  it('extracts pairs, sanitising keys and keeping the first duplicate', () => {
    expect(labelsOf('| logfmt', 'a-b=1 9x=2 dup=first dup=second msg="hi there" empty= flag')).toEqual({
      app: 'test',
      a_b: '1',
      _9x: '2',
      dup: 'first',
      msg: 'hi there',
    });
  });

  it('keeps empty values with --keep-empty', () => {
    expect(labelsOf('| logfmt --keep-empty', 'empty= flag k=v')).toEqual({ app: 'test', empty: '', flag: '', k: 'v' });
  });

  it('decodes escapes in quoted values', () => {
    expect(labelsOf('| logfmt', 'm="a \\"b\\" \\u00e9\\n" x=1')).toEqual({ app: 'test', m: 'a "b" é\n', x: '1' });
  });

  it('skips malformed pairs, or fails the line with --strict', () => {
    expect(labelsOf('| logfmt', 'good=1 bad="unterminated')).toEqual({ app: 'test', good: '1' });
    expect(labelsOf('| logfmt --strict', 'good=1 bad="unterminated')).toEqual({
      app: 'test',
      good: '1',
      __error__: 'LogfmtParserErr',
      __error_details__: 'logfmt syntax error at pos 25 : unterminated quoted value',
    });
    expect(labelsOf('| logfmt --strict', 'a=1 =x b=2').__error_details__).toBe("logfmt syntax error at pos 5 : unexpected '='");
    expect(labelsOf('| logfmt', 'a=1 =x b=2')).toEqual({ app: 'test', a: '1', b: '2' });
  });

  it('renames clashes and replaces undecodable bytes in values with spaces', () => {
    expect(labelsOf('| logfmt', 'app=x v=a\ufffdb')).toEqual({ app: 'test', app_extracted: 'x', v: 'a b' });
  });

  it('extracts only the named keys, missing ones empty', () => {
    expect(labelsOf('| logfmt level, code="status", gone', 'level=info status=200 msg=hi')).toEqual({
      app: 'test',
      level: 'info',
      code: '200',
      gone: '',
    });
  });

  it('parses a 1 MB line', () => {
    const big = 'v'.repeat(1 << 20);
    expect(labelsOf('| logfmt', `a=1 big=${big} z=2`)).toEqual({ app: 'test', a: '1', big, z: '2' });
  });
});

describe('regexp, pattern and unpack', () => {
  it('extracts named groups, an unmatched optional group as empty', () => {
    expect(labelsOf('| regexp `(?P<method>\\w+) (?P<path>\\S+)(?: (?P<status>\\d+))?`', 'GET /home')).toEqual({
      app: 'test',
      method: 'GET',
      path: '/home',
      status: '',
    });
    expect(labelsOf('| regexp `(?P<num>\\d+)`', 'no digits')).toEqual({ app: 'test' });
    expect(labelsOf('| regexp `(?P<app>\\w+)`', 'word')).toEqual({ app: 'test', app_extracted: 'word' });
  });

  it('matches patterns, filling leading captures of a short line', () => {
    expect(labelsOf('| pattern `<method> <_> <status>`', 'GET /home 200')).toEqual({ app: 'test', method: 'GET', status: '200' });
    expect(labelsOf('| pattern `<ip> - <user> [<ts>]`', '1.2.3.4 - bob [now]')).toEqual({ app: 'test', ip: '1.2.3.4', user: 'bob', ts: 'now' });
    expect(labelsOf('| pattern `<method> <path>`', 'POST')).toEqual({ app: 'test', method: 'POST' });
    expect(labelsOf('| pattern `[<level>] <msg>`', 'no bracket')).toEqual({ app: 'test' });
  });

  it('unpacks string fields and replaces the line with _entry', () => {
    const out = runPipeline('| unpack', '{"lvl":"info","num":5,"app":"x","_entry":"real message"}');
    expect(out).toEqual({ line: 'real message', labels: { app: 'test', app_extracted: 'x', lvl: 'info' } });
  });

  it('leaves the line and labels alone without _entry, and flags non-objects', () => {
    expect(runPipeline('| unpack', '{"lvl":"info"}')).toEqual({ line: '{"lvl":"info"}', labels: { app: 'test' } });
    expect(runPipeline('| unpack', 'not json')?.labels).toEqual({
      app: 'test',
      __error__: 'JSONParserErr',
      __error_details__: 'expecting json object(6), but it is not',
    });
  });

  it('lets a later parser read the unpacked line', () => {
    expect(labelsOf('| unpack | logfmt', '{"_entry":"code=42"}')).toEqual({ app: 'test', code: '42' });
  });

  it('keeps the first extraction across parsers', () => {
    expect(labelsOf('| json | logfmt', '{"a":"json"}')).toEqual({ app: 'test', a: 'json' });
    expect(labelsOf('| logfmt | regexp `a=(?P<a>\\w+)`', 'a=first')).toEqual({ app: 'test', a: 'first' });
  });
});
