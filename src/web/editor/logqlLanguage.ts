import { StreamLanguage, type StringStream } from '@codemirror/language';

/**
 * A small LogQL highlighting mode: stream selectors, line filters, parser stages, range
 * aggregations and grouping. It only colors; parsing and errors come from the server's
 * validate endpoint, so the editor never disagrees with what runs.
 */
const KEYWORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset',
  'json', 'logfmt', 'regexp', 'pattern', 'unpack', 'line_format', 'label_format', 'unwrap', 'drop', 'keep', 'decolorize',
]);
const FUNCTIONS = new Set([
  'rate', 'count_over_time', 'bytes_over_time', 'bytes_rate', 'sum_over_time', 'avg_over_time', 'max_over_time', 'min_over_time',
  'first_over_time', 'last_over_time', 'stdvar_over_time', 'stddev_over_time', 'quantile_over_time', 'absent_over_time', 'rate_counter',
  'sum', 'avg', 'min', 'max', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'sort', 'sort_desc', 'label_replace', 'vector', 'duration', 'bytes',
]);

/** logqlToken reads one token; every call consumes at least one character, so a line costs at most its length in calls. */
export function logqlToken(stream: StringStream): string | null {
  if (stream.eatSpace()) return null;
  if (stream.match('#')) {
    stream.skipToEnd();
    return 'comment';
  }
  const quote = stream.peek();
  if (quote === '"' || quote === '`') {
    stream.next();
    while (!stream.eol()) {
      const ch = stream.next();
      if (ch === '\\' && quote === '"') stream.next();
      else if (ch === quote) break;
    }
    return 'string';
  }
  if (stream.match(/^\[\s*\d+(?:ms|s|m|h|d|w|y)\s*\]/)) return 'number';
  if (stream.match(/^\d+(?:\.\d+)?(?:ms|s|m|h|d|w|y)?/)) return 'number';
  if (stream.match(/^(?:\|=|\|~|!=|!~|=~|==|>=|<=|\||=|>|<|\+|-|\*|\/|%|\^)/)) return 'operator';
  if (stream.match(/^[{}()[\],]/)) return 'bracket';
  const word = stream.match(/^[A-Za-z_][A-Za-z0-9_.]*/) as RegExpMatchArray | null;
  if (word) {
    if (FUNCTIONS.has(word[0])) return 'keyword';
    if (KEYWORDS.has(word[0])) return 'keyword';
    return 'propertyName';
  }
  stream.next();
  return null;
}

export const logqlLanguage = StreamLanguage.define({ name: 'logql', token: logqlToken });
