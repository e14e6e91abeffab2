/**
 * Adversarial query texts for the parser benchmarks: each shape repeats one construct until
 * the text reaches the requested size, so a parser with a super-linear path (rescanning a run,
 * recursing once per repetition) shows it as a blow-up in time or a stack overflow.
 */

/** Shape is one named generator of a query of roughly `size` characters. */
export interface Shape {
  name: string;
  make: (size: number) => string;
}

/** repeat fills `size` characters with `unit`, wrapped by `prefix` and `suffix`. */
function repeat(prefix: string, unit: string, suffix: string, size: number): string {
  const count = Math.max(1, Math.floor((size - prefix.length - suffix.length) / unit.length));
  return prefix + unit.repeat(count) + suffix;
}

/** nest wraps `inner` in `count` copies of `open` and `close`. */
function nest(open: string, inner: string, close: string, size: number): string {
  const count = Math.max(1, Math.floor((size - inner.length) / (open.length + close.length)));
  return open.repeat(count) + inner + close.repeat(count);
}

/** randomText is `size` characters from `alphabet`, from a fixed seed. */
function randomText(size: number, alphabet: string): string {
  let state = 12345;
  let out = '';
  for (let i = 0; i < size; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
/** PUNCTUATION is every printable ASCII character that is not a letter, digit or space. */
export const PUNCTUATION = PRINTABLE.replace(/[A-Za-z0-9 ]/g, '');

/** punctuationRuns is one shape per punctuation character: a run of it alone. */
function punctuationRuns(prefix: string): Shape[] {
  return [...PUNCTUATION].map((ch) => ({ name: `run of ${ch}`, make: (size: number) => repeat(prefix, ch, '', size) }));
}

/** PROMQL_SHAPES are PromQL texts that stress every part of the lexer and parser. */
export const PROMQL_SHAPES: Shape[] = [
  { name: 'deep parens', make: (n) => nest('(', 'a', ')', n) },
  { name: 'deep unclosed parens', make: (n) => repeat('', '(', 'a', n) },
  { name: 'deep calls', make: (n) => nest('abs(', 'a', ')', n) },
  { name: 'deep aggregations', make: (n) => nest('sum(', 'a', ')', n) },
  { name: 'deep subqueries', make: (n) => nest('(', 'a', ')[5m:1m]', n) },
  { name: 'a+a+a chain', make: (n) => repeat('a', '+a', '', n) },
  { name: 'a^a^a chain', make: (n) => repeat('a', '^a', '', n) },
  { name: 'a or a chain', make: (n) => repeat('a', ' or a', '', n) },
  { name: '1+1+1 chain', make: (n) => repeat('1', '+1', '', n) },
  { name: 'unary - chain', make: (n) => repeat('', '- ', 'a', n) },
  { name: 'unary -- run', make: (n) => repeat('', '-', '1', n) },
  { name: 'many matchers', make: (n) => repeat('a{', 'l="v",', 'z="v"}', n) },
  { name: 'many regex matchers', make: (n) => repeat('a{', 'l=~"v.*",', 'z="v"}', n) },
  { name: 'many call args', make: (n) => repeat('count_values("x", a', ',a', ')', n) },
  { name: 'many grouping labels', make: (n) => repeat('sum by (', 'l,', 'z) (a)', n) },
  { name: 'deep regex parens', make: (n) => 'a{l=~"' + nest('(', 'x', ')', n - 10) + '"}' },
  { name: 'huge string', make: (n) => repeat('a{l="', 'x', '"}', n) },
  { name: 'huge string of escapes', make: (n) => repeat('a{l="', '\\n\\x41', '"}', n) },
  { name: 'huge raw string', make: (n) => repeat('a{l=`', 'x', '`}', n) },
  { name: 'unterminated string', make: (n) => repeat('a{l="', 'x', '', n) },
  { name: 'huge identifier', make: (n) => repeat('', 'a', '', n) },
  { name: 'huge number', make: (n) => repeat('', '1', '', n) },
  { name: 'huge duration', make: (n) => repeat('a[', '1h', ']', n) },
  { name: 'many offsets', make: (n) => repeat('a', ' offset 1m', '', n) },
  { name: 'many comments', make: (n) => repeat('', '# c\n', 'a', n) },
  { name: 'random bytes', make: (n) => randomText(n, PRINTABLE) },
  ...punctuationRuns(''),
];

/** LOGQL_SHAPES are LogQL texts that stress every part of the lexer and parser. */
export const LOGQL_SHAPES: Shape[] = [
  { name: 'deep parens', make: (n) => nest('(', 'count_over_time({a="b"}[1m])', ')', n) },
  { name: 'deep unclosed parens', make: (n) => repeat('', '(', '{a="b"}', n) },
  { name: 'deep aggregations', make: (n) => nest('sum(', 'count_over_time({a="b"}[1m])', ')', n) },
  { name: 'deep range parens', make: (n) => 'count_over_time(' + nest('(', '{a="b"}', ')', n - 30) + '[1m])' },
  { name: 'a+a+a chain', make: (n) => repeat('vector(1)', '+vector(1)', '', n) },
  { name: '1+1+1 chain', make: (n) => repeat('1', '+1', '', n) },
  { name: 'a^a^a chain', make: (n) => repeat('1', '^1', '', n) },
  { name: 'a or a chain', make: (n) => repeat('vector(1)', ' or vector(1)', '', n) },
  { name: 'unary - chain', make: (n) => repeat('', '- ', '1', n) },
  { name: 'many matchers', make: (n) => repeat('{', 'l="v",', 'z="v"}', n) },
  { name: 'many pipeline stages', make: (n) => repeat('{a="b"}', ' | json', '', n) },
  { name: 'many |= filters', make: (n) => repeat('{a="b"}', ' |= "x"', '', n) },
  { name: 'many label filters', make: (n) => repeat('{a="b"} | l="v"', ' and l="v"', '', n) },
  { name: 'nested label filters', make: (n) => '{a="b"} | ' + nest('(', 'l="v"', ')', n - 10) },
  { name: 'huge string', make: (n) => repeat('{a="', 'x', '"}', n) },
  { name: 'huge string of escapes', make: (n) => repeat('{a="', '\\n\\x41', '"}', n) },
  { name: 'unterminated string', make: (n) => repeat('{a="', 'x', '', n) },
  { name: 'huge line_format template', make: (n) => repeat('{a="b"} | line_format "', '{{.a}}', '"', n) },
  { name: 'deep template parens', make: (n) => '{a="b"} | line_format `{{' + nest('(', '.a', ')', n - 30) + '}}`' },
  { name: 'deep template ifs', make: (n) => '{a="b"} | line_format `' + nest('{{if .a}}', 'x', '{{end}}', n - 30) + '`' },
  { name: 'deep regex parens', make: (n) => '{a="b"} |~ `' + nest('(', 'x', ')', n - 20) + '`' },
  { name: 'huge identifier', make: (n) => repeat('', 'a', '', n) },
  { name: 'huge number', make: (n) => repeat('', '1', '', n) },
  { name: 'huge duration', make: (n) => repeat('count_over_time({a="b"}[', '1h', '])', n) },
  { name: 'many comments', make: (n) => repeat('', '# c\n', '{a="b"}', n) },
  { name: 'random bytes', make: (n) => randomText(n, PRINTABLE) },
  ...punctuationRuns('{a="b"} '),
];
