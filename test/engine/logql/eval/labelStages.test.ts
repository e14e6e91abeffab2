import { describe, expect, it } from 'vitest';
import { runPipeline } from './helpers.js';

function labelsOf(stages: string, line: string, tags?: Record<string, string>): Record<string, string> | null {
  const out = runPipeline(stages, line, tags);
  return out === null ? null : out.labels;
}

describe('label filters', () => {
  it.each([
    ['| logfmt | name="alpha"', 'name=alpha', true],
    ['| logfmt | name!="alpha"', 'name=alpha', false],
    ['| logfmt | name=~"al.*"', 'name=alpha', true],
    ['| logfmt | name=~"alph"', 'name=alpha', false],
    ['| logfmt | name!~"al.*"', 'name=beta', true],
    ['| logfmt | name=""', 'other=1', true],
    ['| logfmt | name=~".+"', 'other=1', false],
    ['| logfmt | status >= 500', 'status=503', true],
    ['| logfmt | status == 200', 'status=200.0', true],
    ['| logfmt | status != 200', 'status=200', false],
    ['| logfmt | code < 0', 'code=-5', true],
    ['| logfmt | code > 1e3', 'code=1500', true],
    ['| logfmt | status > 400', 'other=1', false],
    ['| logfmt | took > 1s', 'took=1500ms', true],
    ['| logfmt | took <= 1s', 'took=1500ms', false],
    ['| logfmt | took == 1h', 'took=3600000000µs', true],
    ['| logfmt | took == 90m', 'took=1h30m', true],
    ['| logfmt | size > 1MB', 'size=3mb', true],
    ['| logfmt | size < 2KiB', 'size=1.5KiB', true],
    ['| logfmt | size == 3000KB', 'size=3MB', true],
    ['| logfmt | addr = ip("192.168.0.0/16")', 'addr=192.168.1.5', true],
    ['| logfmt | addr != ip("192.168.0.0/16")', 'addr=10.0.0.1', true],
    ['| logfmt | addr = ip("10.0.0.0/8")', 'addr="host 10.1.2.3:80"', true],
    ['| logfmt | addr = ip("10.0.0.0/8")', 'other=1', false],
    ['| logfmt | level="error" and code="500"', 'level=error code=500', true],
    ['| logfmt | level="error" and code="500"', 'level=error code=200', false],
    ['| logfmt | level="error", code="500"', 'level=error code=200', false],
    ['| logfmt | level="info" or code="200"', 'level=error code=200', true],
    ['| logfmt | x="1" or y="1" and z="1"', 'x=0 y=1 z=1', true],
    ['| logfmt | (x="1" or y="1") and z="1"', 'x=1 y=0 z=0', false],
  ])('%s on %j keeps=%s', (stages, line, expected) => {
    expect(labelsOf(stages, line) !== null).toBe(expected);
  });

  it('reads stream labels without a parser', () => {
    expect(labelsOf('| status >= 500', 'x', { app: 'test', status: '500' })).toEqual({ app: 'test', status: '500' });
    expect(labelsOf('| status >= 500', 'x', { app: 'test', status: '200' })).toBeNull();
  });

  it.each([
    ['| logfmt | status > 400', 'status=oops', 'strconv.ParseFloat: parsing "oops": invalid syntax'],
    ['| logfmt | took > 1s', 'took=oops', 'time: invalid duration "oops"'],
    ['| logfmt | took > 1s', 'took=90', 'time: missing unit in duration "90"'],
    ['| logfmt | took > 1s', 'took=1d', 'time: unknown unit "d" in duration "1d"'],
    ['| logfmt | size > 1MB', 'size=oops', 'strconv.ParseFloat: parsing "": invalid syntax'],
    ['| logfmt | size > 1MB', 'size=3zz', 'unhandled size name: zz'],
  ])('%s on %j keeps the line with LabelFilterErr', (stages, line, details) => {
    expect(labelsOf(stages, line)).toMatchObject({ __error__: 'LabelFilterErr', __error_details__: details });
  });

  it('keeps the first error, and short-circuits or but not and', () => {
    expect(labelsOf('| logfmt | x > 1s and y > 1s', 'x=nope y=90')?.__error_details__).toBe('time: invalid duration "nope"');
    expect(labelsOf('| logfmt | y > 1s and x > 1s', 'x=nope y=90')?.__error_details__).toBe('time: missing unit in duration "90"');
    expect(labelsOf('| logfmt | lvl="error" or took > 1s', 'lvl=error took=oops')).not.toHaveProperty('__error__');
    expect(labelsOf('| logfmt | took > 1s or lvl="error"', 'lvl=error took=oops')).toHaveProperty('__error__', 'LabelFilterErr');
    expect(labelsOf('| logfmt | took > 1s and size < 1MB', 'took=oops size=3MB')).toBeNull();
  });

  it('filters on __error__', () => {
    expect(labelsOf('| logfmt | took > 1s | __error__=""', 'took=oops')).toBeNull();
    expect(labelsOf('| logfmt | took > 1s | __error__!=""', 'took=oops')).not.toBeNull();
    expect(labelsOf('| logfmt | took > 1s | __error__ > 0', 'took=oops')).toBeNull();
    expect(labelsOf('| json | addr = ip("1.2.3.0/24")', 'not json')).toHaveProperty('__error__', 'JSONParserErr');
    expect(labelsOf('| json | took > 1s', 'not json')).toBeNull();
  });
});

describe('drop, keep and decolorize', () => {
  const tags = { app: 'test', code: '500', zone: 'eu' };

  it('drops names, and name=value only where it matches', () => {
    expect(labelsOf('| drop code, zone', 'x', tags)).toEqual({ app: 'test' });
    expect(labelsOf('| drop code="500"', 'x', tags)).toEqual({ app: 'test', zone: 'eu' });
    expect(labelsOf('| drop code="200"', 'x', tags)).toEqual(tags);
    expect(labelsOf('| drop code=~"5.."', 'x', tags)).toEqual({ app: 'test', zone: 'eu' });
  });

  it('drops errors to ignore failures', () => {
    expect(labelsOf('| json | drop __error__', 'broken')).toEqual({ app: 'test', __error_details__: "Value looks like object, but can't find closing '}' symbol" });
    expect(labelsOf('| json | drop __error__, __error_details__', 'broken')).toEqual({ app: 'test' });
    expect(labelsOf('| json | drop __error__="OtherErr"', 'broken')).toHaveProperty('__error__', 'JSONParserErr');
  });

  it('keeps only listed labels, but never the error labels', () => {
    expect(labelsOf('| keep zone', 'x', tags)).toEqual({ zone: 'eu' });
    expect(labelsOf('| keep code="500", zone', 'x', tags)).toEqual({ code: '500', zone: 'eu' });
    expect(labelsOf('| keep code="200"', 'x', tags)).toEqual({});
    expect(labelsOf('| json | keep zone', 'broken', tags)).toEqual({
      zone: 'eu',
      __error__: 'JSONParserErr',
      __error_details__: "Value looks like object, but can't find closing '}' symbol",
    });
  });

  it('removes ANSI sequences', () => {
    expect(runPipeline('| decolorize', '\u001b[31mred\u001b[0m and \u001b[1;32mgreen\u001b[0m')?.line).toBe('red and green');
    expect(runPipeline('| decolorize', 'plain')?.line).toBe('plain');
  });

  it('runs filters after decolorize on the cleaned line', () => {
    expect(runPipeline('| decolorize |= "red and"', '\u001b[31mred\u001b[0m and')).not.toBeNull();
  });
});

describe('line_format and label_format', () => {
  const tags = { app: 'test', level: 'error', method: 'get' };

  it('rewrites the line from labels', () => {
    expect(runPipeline('| line_format "L={{.level}}"', 'x', tags)?.line).toBe('L=error');
    expect(runPipeline('| line_format "{{.missing}}"', 'x', tags)?.line).toBe('');
    expect(runPipeline('| line_format "{{.level | upper}} {{__line__}}"', 'orig', tags)?.line).toBe('ERROR orig');
    expect(runPipeline('| line_format `{{ printf "\\x1b[31m%s\\x1b[0m" .level }}` | decolorize', 'x', tags)?.line).toBe('error');
  });

  it('lets filters after line_format see the new line', () => {
    expect(runPipeline('| line_format "L={{.level}}" |= "L=error"', 'x', tags)).not.toBeNull();
    expect(runPipeline('| line_format "L={{.level}}" |= "x"', 'x', tags)).toBeNull();
  });

  it('renames and sets labels', () => {
    expect(labelsOf('| label_format verb=method', 'x', tags)).toEqual({ app: 'test', level: 'error', verb: 'get' });
    expect(labelsOf('| label_format route="{{.method}}-ok"', 'x', tags)).toEqual({ ...tags, route: 'get-ok' });
    expect(labelsOf('| label_format method="{{.method}}!"', 'x', tags)).toEqual({ ...tags, method: 'get!' });
    expect(labelsOf('| label_format a="{{.method}}", b="{{.a}}"', 'x', tags)).toEqual({ ...tags, a: 'get', b: '' });
    expect(labelsOf('| label_format verb=nothere', 'x', tags)).toEqual(tags);
  });

  it('reads the timestamp', () => {
    const out = runPipeline('| line_format `{{ __timestamp__ | unixEpochMillis }} {{ date "2006-01-02T15:04:05Z07:00" __timestamp__ }}`', 'x', tags, 1767225600123000000n);
    expect(out?.line).toBe('1767225600123 2026-01-01T00:00:00Z');
  });

  it('marks a template that fails at run time with TemplateFormatErr and keeps the line', () => {
    const out = runPipeline('| line_format "{{.level.x}}"', 'orig', tags);
    expect(out?.line).toBe('orig');
    expect(out?.labels.__error__).toBe('TemplateFormatErr');
    expect(out?.labels.__error_details__).toBe('template: line:1:2: executing "line" at <.level.x>: can\'t evaluate field x in type string');
    const label = runPipeline('| label_format n="{{ div 1 0 }}"', 'orig', tags);
    expect(label?.labels.__error__).toBe('TemplateFormatErr');
    expect(label?.labels.__error_details__).toContain('error calling div: runtime error: integer divide by zero');
  });

  it('treats names of object built-ins as ordinary labels', () => {
    expect(labelsOf('| json', '{"constructor":"c","toString":"t"}')).toEqual({ app: 'test', constructor: 'c', toString: 't' });
    expect(runPipeline('| line_format "[{{.toString}}]"', 'x')?.line).toBe('[]');
    expect(labelsOf('| hasOwnProperty=""', 'x')).toEqual({ app: 'test' });
    expect(labelsOf('| label_format a=valueOf', 'x')).toEqual({ app: 'test' });
    const proto = labelsOf('| json', '{"__proto__":"p"}')!;
    expect(Object.keys(proto)).toEqual(['__proto__', 'app']);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toBe('p');
  });
});
