import { describe, expect, it } from 'vitest';
import { LOKI_TEMPLATE_FUNCTIONS, TEMPLATE_FUNCTIONS, parseTemplate } from '../../../engine/gotemplate/index.js';
import type { Template, TemplateNode } from '../../../engine/gotemplate/index.js';
import { withoutPositions } from '../logql/helpers.js';

function parsed(text: string): Template {
  const result = parseTemplate(text);
  if (!result.ok) throw new Error(`${text}: ${result.message}`);
  return withoutPositions(result.template);
}

function nodes(text: string): TemplateNode[] {
  return parsed(text).nodes;
}

function failure(text: string): { message: string; at: string } {
  const result = parseTemplate(text);
  if (result.ok) throw new Error(`${text} parsed`);
  return { message: result.message, at: text.slice(result.offset) };
}

const field = (...path: string[]) => ({ kind: 'field', path });
const command = (...args: unknown[]) => ({ kind: 'command', args });
const pipeline = (...commands: unknown[]) => ({ kind: 'pipeline', declarations: [], isAssign: false, commands });
const action = (...commands: unknown[]) => ({ kind: 'action', pipeline: pipeline(...commands) });
const fn = (name: string) => ({ kind: 'function', name });
const str = (value: string) => ({ kind: 'string', value });

describe('parseTemplate', () => {
  it('parses text and field actions', () => {
    expect(parsed('L={{.level}} {{ .a.b }}')).toEqual({
      nodes: [{ kind: 'text', text: 'L=' }, action(command(field('level'))), { kind: 'text', text: ' ' }, action(command(field('a', 'b')))],
      labels: ['level', 'a'],
    });
  });

  it('parses pipelines of function calls', () => {
    expect(nodes('{{ .x | ToUpper | trunc 3 }}')).toEqual([
      action(command(field('x')), command(fn('ToUpper')), command(fn('trunc'), { kind: 'number', value: 3, text: '3' })),
    ]);
  });

  it('parses calls with literal arguments of every kind', () => {
    expect(nodes('{{ regexReplaceAll "a(.)" .b `${1}` }}')).toEqual([action(command(fn('regexReplaceAll'), str('a(.)'), field('b'), str('${1}')))]);
    expect(nodes(`{{ printf "%s %d %v %v %c" .x -1.5e2 true nil 'a' }}`)).toEqual([
      action(
        command(
          fn('printf'),
          str('%s %d %v %v %c'),
          field('x'),
          { kind: 'number', value: -150, text: '-1.5e2' },
          { kind: 'bool', value: true },
          { kind: 'nil' },
          { kind: 'number', value: 97, text: "'a'" },
        ),
      ),
    ]);
  });

  it('parses the per-line functions and parenthesised pipelines', () => {
    expect(nodes('{{ __line__ }}{{ (__timestamp__ | unixEpoch) }}')).toEqual([
      action(command(fn('__line__'))),
      action(command({ kind: 'subpipeline', pipeline: pipeline(command(fn('__timestamp__')), command(fn('unixEpoch'))), path: [] })),
    ]);
  });

  it('applies trim markers to neighbouring text', () => {
    expect(nodes('a  {{- .x -}}  b')).toEqual([{ kind: 'text', text: 'a' }, action(command(field('x'))), { kind: 'text', text: 'b' }]);
    expect(nodes('a {{-3}} b')).toEqual([
      { kind: 'text', text: 'a ' },
      action(command({ kind: 'number', value: -3, text: '-3' })),
      { kind: 'text', text: ' b' },
    ]);
  });

  it('drops comments, honouring their trim markers', () => {
    expect(nodes('a {{- /* note */ -}} b{{/* x */}}')).toEqual([{ kind: 'text', text: 'ab' }]);
  });

  it('parses if / else if / else chains as nested branches', () => {
    expect(nodes('{{if eq .l "e"}}E{{else if .w}}W{{else}}I{{end}}!')).toEqual([
      {
        kind: 'if',
        pipeline: pipeline(command(fn('eq'), field('l'), str('e'))),
        body: [{ kind: 'text', text: 'E' }],
        elseBody: [
          {
            kind: 'if',
            pipeline: pipeline(command(field('w'))),
            body: [{ kind: 'text', text: 'W' }],
            elseBody: [{ kind: 'text', text: 'I' }],
          },
        ],
      },
      { kind: 'text', text: '!' },
    ]);
  });

  it('parses with and range branches with declarations', () => {
    expect(nodes('{{with .a}}{{.}}{{end}}')).toEqual([{ kind: 'with', pipeline: pipeline(command(field('a'))), body: [action(command({ kind: 'dot' }))] }]);
    const [range] = nodes('{{range $i, $v := .xs}}{{$v}}{{break}}{{end}}');
    expect(range).toMatchObject({ kind: 'range', pipeline: { declarations: ['$i', '$v'] }, body: [{ kind: 'action' }, { kind: 'break' }] });
  });

  it('tracks variables and their scope', () => {
    expect(nodes('{{ $x := .a }}{{ $x | lower }}{{ $ }}')).toEqual([
      { kind: 'action', pipeline: { kind: 'pipeline', declarations: ['$x'], isAssign: false, commands: [command(field('a'))] } },
      action(command({ kind: 'variable', name: '$x', path: [] }), command(fn('lower'))),
      action(command({ kind: 'variable', name: '$', path: [] })),
    ]);
    expect(parsed('{{ $.app }}').labels).toEqual(['app']);
    expect(failure('{{if .a}}{{$x := 1}}{{end}}{{$x}}')).toEqual({ message: 'undefined variable "$x"', at: '$x}}' });
    expect(failure('{{ $y = 1 }}').message).toBe('undefined variable "$y"');
  });

  it('knows every function in Loki\'s list and nothing else', () => {
    for (const name of LOKI_TEMPLATE_FUNCTIONS) expect(parseTemplate(`{{ ${name} }}`).ok, name).toBe(true);
    for (const name of ['printf', 'index', 'len', 'and', 'not']) expect(TEMPLATE_FUNCTIONS.has(name)).toBe(true);
    expect(TEMPLATE_FUNCTIONS.has('env')).toBe(false);
  });

  it.each([
    ['{{ nosuchfunc }}', 'function "nosuchfunc" not defined', 'nosuchfunc }}'],
    ['x {{', 'unclosed action', '{{'],
    ['{{ .a ', 'unclosed action', '{{ .a '],
    ['{{ if .a }}x', 'unexpected EOF', ''],
    ['{{ end }}', 'unexpected {{end}}', 'end }}'],
    ['{{ else }}', 'unexpected {{else}}', 'else }}'],
    ['{{if .a}}{{else}}{{else}}{{end}}', 'expected end; found {{else}}', 'else}}{{end}}'],
    ['{{}}', 'missing value for command', '}}'],
    ['{{ if }}{{ end }}', 'missing value for if', '}}{{ end }}'],
    ['{{ .a | "x" }}', 'non executable command in pipeline stage 2', '"x" }}'],
    ['{{ "a }}', 'unterminated quoted string', '"a }}'],
    ['{{ 1x }}', 'bad number syntax: "1x"', '1x }}'],
    ['{{ ( .a }}', 'unclosed left paren', '}}'],
    ['{{ .a ) }}', 'unexpected right paren U+0029 ")"', ') }}'],
    ['{{ @ }}', 'unrecognized character in action: U+0040 "@"', '@ }}'],
    ['{{ nil }}', 'nil is not a command', 'nil }}'],
    ['{{ "a".b }}', 'unexpected . after term "\\"a\\""', '.b }}'],
    ['{{ break }}', '{{break}} outside {{range}}', 'break }}'],
    ['{{ define "x" }}{{ end }}', '{{define}} is not supported in LogQL templates', 'define "x" }}{{ end }}'],
    ['{{/* open', 'unclosed comment', '{{/* open'],
    ['{{/* c */ .x}}', 'comment ends before closing delimiter', '{{/* c */ .x}}'],
  ])('rejects %s', (text, message, at) => {
    expect(failure(text)).toEqual({ message, at });
  });

  it('records positions relative to the template text', () => {
    const result = parseTemplate('ab{{ .x | upper }}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [, act] = result.template.nodes;
    expect(act.pos).toEqual({ start: 2, end: 18 });
    expect(act.kind === 'action' && act.pipeline.commands.map((c) => c.pos)).toEqual([
      { start: 5, end: 7 },
      { start: 10, end: 15 },
    ]);
  });
});
