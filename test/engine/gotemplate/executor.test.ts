import { describe, expect, it } from 'vitest';
import { executeTemplate, labelMap, parseTemplate, TemplateExecError } from '../../../engine/gotemplate/index.js';
import { sprintf } from '../../../engine/gotemplate/print.js';

const LABELS = { a: 'alpha', n: '42', f: '1.5', s: ' padded ', empty: '', json: '{"k":[1,2],"m":{"x":"y"}}', path: 'a%2Fb+c', b64: 'aGVsbG8' };
const TS = 1767312245123456789n; // 2026-01-02T00:04:05.123456789Z

function run(text: string, line = 'the line'): string {
  const parsed = parseTemplate(text);
  if (!parsed.ok) throw new Error(`parse: ${parsed.message}`);
  return executeTemplate(
    { template: parsed.template, source: text, name: 'line' },
    labelMap(new Map(Object.entries(LABELS))),
    { line: () => line, timestampNs: () => TS },
  );
}

function failure(text: string): string {
  try {
    run(text);
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateExecError);
    return (err as Error).message;
  }
  throw new Error('expected a failure');
}

describe('template actions', () => {
  it.each([
    ['plain {{.a}}!', 'plain alpha!'],
    ['{{.missing}}|', '|'],
    ['{{ . }}', 'map[a:alpha b64:aGVsbG8 empty: f:1.5 json:{"k":[1,2],"m":{"x":"y"}} n:42 path:a%2Fb+c s: padded ]'],
    ['{{ 3 }} {{ 3.0 }} {{ 1e6 }} {{ 0x10 }} {{ true }}', '3 3 1e+06 16 true'],
    ['{{if .a}}yes{{else}}no{{end}}', 'yes'],
    ['{{if .empty}}yes{{else if .n}}n={{.n}}{{end}}', 'n=42'],
    ['{{with .a}}[{{.}}]{{end}}{{with .empty}}x{{else}}none{{end}}', '[alpha]none'],
    ['{{ $x := .a }}{{ $x }}{{ $x = "b" }}{{ $x }}', 'alphab'],
    ['{{ range $i, $v := (fromJson .json).k }}{{$i}}={{$v}};{{ end }}', '0=1;1=2;'],
    ['{{ range $k, $v := (fromJson .json).m }}{{$k}}:{{$v}}{{ end }}', 'x:y'],
    ['{{ range 3 }}{{.}}{{ end }}', '012'],
    ['{{ range $v := (fromJson .json).k }}{{ if eq $v 2.0 }}{{ break }}{{ end }}{{$v}}{{ end }}', '1'],
    ['{{ range (fromJson "[]") }}x{{ else }}empty{{ end }}', 'empty'],
    ['{{- "trim" -}}  {{ "med" }}', 'trimmed'],
    ['{{ and .a .empty }}|{{ or .empty .a }}|{{ not .empty }}', '|alpha|true'],
    ['{{ .a | printf "%s-%s" "x" }}', 'x-alpha'],
    ['{{ (fromJson .json).nope }}', '<no value>'],
  ])('%s', (text, expected) => {
    expect(run(text)).toBe(expected);
  });
});

describe('template functions', () => {
  it.each([
    ['{{ .a | upper }} {{ .a | ToUpper }} {{ "X" | lower }} {{ "X" | ToLower }}', 'ALPHA ALPHA x x'],
    ['{{ title "hello wide world" }}', 'Hello Wide World'],
    ['{{ .s | trim }}|{{ TrimSpace .s }}|{{ trimAll "x" "xxaxx" }}|{{ Trim "xxaxx" "x" }}|{{ TrimLeft "xxa" "x" }}|{{ TrimRight "axx" "x" }}', 'padded|padded|a|a|a|a'],
    ['{{ trimPrefix "al" .a }} {{ trimSuffix "ha" .a }} {{ TrimPrefix .a "al" }} {{ TrimSuffix .a "ha" }}', 'pha alp pha alp'],
    ['{{ replace "a" "o" .a }} {{ Replace .a "a" "o" 1 }} {{ Replace .a "a" "o" -1 }}', 'olpho olpha olpho'],
    ['{{ trunc 3 .a }} {{ trunc -2 .a }} {{ substr 1 3 .a }} {{ repeat 2 "ab" }}', 'alp ha lp abab'],
    ['{{ contains "ph" .a }} {{ hasPrefix "al" .a }} {{ hasSuffix "x" .a }}', 'true true false'],
    ['[{{ alignLeft 7 .a }}][{{ alignRight 7 .a }}][{{ alignLeft 2 .a }}][{{ alignRight 2 .a }}]', '[alpha  ][  alpha][al][ha]'],
    ['{{ indent 2 "a\\nb" }}|{{ nindent 1 "c" }}', '  a\n  b|\n c'],
    ['{{ add 1 2 .n }} {{ sub .n 2 }} {{ mul 2 3 }} {{ div 7 2 }} {{ mod 7 2 }} {{ max 1 9 3 }} {{ min 4 2 }}', '45 40 6 3 1 9 2'],
    ['{{ addf 0.1 0.2 }} {{ subf 1 0.9 }} {{ mulf 1.1 3 }} {{ divf 1 3 }} {{ maxf 1.5 2 }} {{ minf .f 2 }}', '0.3 0.1 3.3 0.3333333333333333 2 1.5'],
    ['{{ ceil 1.2 }} {{ floor .f }} {{ round 2.345 2 }} {{ round 2.5 0 }} {{ int "12" }} {{ int .f }} {{ float64 .f }}', '2 1 2.35 3 12 0 1.5'],
    ['{{ default "dflt" .empty }} {{ default "dflt" .a }} {{ default 5 0 }}', 'dflt alpha 5'],
    ['{{ regexReplaceAll "(l)(p)" .a "${2}$1" }} {{ regexReplaceAllLiteral "l" .a "$1" }} {{ count "a" .a }}', 'aplha a$1pha 2'],
    ['{{ urldecode .path }} {{ urlencode "a b&c/é" }}', 'a/b c a+b%26c%2F%C3%A9'],
    ['{{ b64enc "hello" }} {{ b64dec .b64 }} {{ b64dec "!!" }}', 'aGVsbG8= hello illegal base64 data at input byte 0'],
    ['{{ bytes "1.5KiB" }} {{ duration "1m30s" }} {{ duration_seconds "250ms" }}', '1536 90 0.25'],
    ['{{ len .a }} {{ len "é" }} {{ index (fromJson .json) "m" "x" }} {{ index (fromJson .json).k 1 }} {{ slice .a 1 3 }}', '5 2 y 2 lp'],
    ['{{ eq .a "alpha" }} {{ eq .a "x" "alpha" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.5 }}', 'true true true true true true false'],
    ['{{ print "a" 1 2 "b" }}|{{ println "x" 1 }}|{{ html "<a&b>" }}|{{ js "it\'s" }}|{{ urlquery "a b" }}', 'a1 2b|x 1\n|&lt;a&amp;b&gt;|it\\\'s|a+b'],
  ])('%s', (text, expected) => {
    expect(run(text)).toBe(expected);
  });

  it('formats and parses times', () => {
    expect(run('{{ __timestamp__ | unixEpochNanos }} {{ unixEpochMillis __timestamp__ }} {{ unixEpoch __timestamp__ }}')).toBe(
      '1767312245123456789 1767312245123 1767312245',
    );
    expect(run('{{ date "2006-01-02 15:04:05.000 MST Mon Jan" __timestamp__ }}')).toBe('2026-01-02 00:04:05.123 UTC Fri Jan');
    expect(run('{{ date "3:04PM .999999999" __timestamp__ }}')).toBe('12:04AM .123456789');
    expect(run('{{ __timestamp__ }}')).toBe('2026-01-02 00:04:05.123456789 +0000 UTC');
    expect(run('{{ (toDate "2006-01-02" "2024-03-05") | unixEpoch }}')).toBe('1709596800');
    expect(run('{{ (unixToTime "1709596800") | unixEpochMillis }} {{ (unixToTime "19787") | unixEpoch }}')).toBe('1709596800000 1709596800');
    expect(run('{{ (toDateInZone "2006-01-02 15:04" "America/New_York" "2024-07-01 12:00") | unixEpoch }}')).toBe('1719849600');
    expect(run('{{ date "2006" 0 }} {{ (__timestamp__).Unix }}')).toBe('1970 1767312245');
  });

  it('reads the current line with __line__', () => {
    expect(run('{{ __line__ | upper }}', 'raw text')).toBe('RAW TEXT');
  });
});

describe('printf', () => {
  it.each([
    ['%s|%q|%v|%d', ['a', 'b"c', 1.5, 42n], 'a|"b\\"c"|1.5|42'],
    ['%5d|%-5d|%05d|%+d|%x|%X|%o|%b|%#x', [42n, 42n, 42n, 42n, 255n, 255n, 8n, 5n, 255n], '   42|42   |00042|+42|ff|FF|10|101|0xff'],
    ['%.2f|%8.3f|%e|%g|%g|%G', [3.14159, 2.5, 1234.5678, 1e21, 0.0001, 1e-7], '3.14|   2.500|1.234568e+03|1e+21|0.0001|1E-07'],
    ['%t|%v|%c|%U|%%', [true, null, 65n, 0x1f600n], 'true|<nil>|A|U+1F600|%'],
    ['%.3s|%6s|%-6s|', ['abcdef', 'ab', 'ab'], 'abc|    ab|ab    |'],
    ['%d %s', ['x'], '%!d(string=x) %!s(MISSING)'],
    ['%d', [1n, 2n], '1%!(EXTRA int=2)'],
    ['%x', ['hi'], '6869'],
  ])('%s', (format, args, expected) => {
    expect(sprintf(format, args as never)).toBe(expected);
  });
});

describe('template errors', () => {
  it.each([
    ['{{.a.b}}', 'template: line:1:2: executing "line" at <.a.b>: can\'t evaluate field b in type string'],
    ['x\n{{ lower 3 }}', 'template: line:2:9: executing "line" at <3>: expected string; found 3'],
    ['{{ eq .n 42 }}', 'error calling eq: incompatible types for comparison'],
    ['{{ trunc .n .a }}', 'wrong type for value; expected int; got string'],
    ['{{ unixToTime "12" }}', "error calling unixToTime: unable to parse time '12'"],
    ['{{ urldecode "%zz" }}', 'error calling urldecode: invalid URL escape "%zz"'],
    ['{{ regexReplaceAll "(" .a "" }}', 'error calling regexReplaceAll: error parsing regexp'],
    ['{{ index (fromJson .json).k 5 }}', 'error calling index: index out of range: 5'],
    ['{{ 3 .a }}', "can't give argument to non-function 3"],
  ])('%s', (text, message) => {
    expect(failure(text)).toContain(message);
  });
});
