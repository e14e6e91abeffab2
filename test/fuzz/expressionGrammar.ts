import fc from 'fast-check';

/**
 * Grammar-shaped generators for PromQL and LogQL expressions. Most cases are well-formed or
 * nearly so (real function names, real operators, plausible durations), so they get past the
 * parser and exercise checking and evaluation; a share is mutated (characters inserted,
 * deleted, truncated) so the parser's error paths are walked too.
 */

const METRICS = ['up', 'http_requests_total', 'latency_seconds_bucket', 'missing_metric', 'a:b:c', 'x'];
const LABELS = ['job', 'code', 'le', 'instance', '__name__', 'service_name', 'level', 'weird_label'];
const VALUES = ['api', '200', '5..', '.*', '', '-0', 'a{2}', '(', '\\\\d+', 'é', '0.5', '+Inf'];
const DURATIONS = ['1ms', '1s', '30s', '1m', '5m', '1h', '1d', '1w', '1y', '0s', '90s', '1h30m', '1000d'];
const NUMBERS = ['0', '1', '-1', '0.5', '1e3', '1e308', '-1e308', 'Inf', '-Inf', 'NaN', '0x1f', '.5', '1_000'];

const PROM_FUNCTIONS_INSTANT = ['abs', 'ceil', 'floor', 'exp', 'ln', 'log2', 'sqrt', 'sgn', 'timestamp', 'sort', 'sort_desc', 'absent', 'scalar', 'vector', 'clamp', 'clamp_min', 'round', 'histogram_quantile', 'label_replace', 'label_join', 'time', 'day_of_week', 'hour', 'deriv', 'sin', 'atan2'];
const PROM_FUNCTIONS_RANGE = ['rate', 'irate', 'increase', 'delta', 'idelta', 'avg_over_time', 'max_over_time', 'min_over_time', 'sum_over_time', 'count_over_time', 'quantile_over_time', 'stddev_over_time', 'last_over_time', 'present_over_time', 'changes', 'resets', 'deriv', 'predict_linear', 'holt_winters', 'absent_over_time', 'mad_over_time'];
const PROM_AGGREGATIONS = ['sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'limitk', 'limit_ratio'];
const PROM_BINARY = ['+', '-', '*', '/', '%', '^', '==', '!=', '>', '<', '>=', '<=', 'and', 'or', 'unless', 'atan2', '== bool', '> bool'];

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const quoted = (a: fc.Arbitrary<string>): fc.Arbitrary<string> => a.map((s) => JSON.stringify(s));

const matcher = fc.tuple(pick(LABELS), pick(['=', '!=', '=~', '!~']), quoted(fc.oneof(pick(VALUES), fc.string({ maxLength: 8 })))).map(([l, op, v]) => `${l}${op}${v}`);
const matchers = fc.array(matcher, { maxLength: 3 }).map((ms) => ms.join(','));

const promSelector = fc.tuple(pick(METRICS), fc.option(matchers, { nil: undefined }), fc.option(pick(['offset 5m', 'offset -1h', '@ 100', '@ start()', '@ end()']), { nil: undefined })).map(
  ([m, ms, mod]) => `${m}${ms === undefined ? '' : `{${ms}}`}${mod === undefined ? '' : ` ${mod}`}`,
);

const promRange = fc.tuple(promSelector, pick(DURATIONS)).map(([s, d]) => {
  const at = s.search(/ (offset|@)/);
  return at < 0 ? `${s}[${d}]` : `${s.slice(0, at)}[${d}]${s.slice(at)}`;
});

const { promExpr } = fc.letrec<{ promExpr: string }>((tie) => {
  const inner = tie('promExpr') as fc.Arbitrary<string>;
  return {
    promExpr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      promSelector,
      pick(NUMBERS),
      quoted(pick(VALUES)),
      fc.tuple(pick(PROM_FUNCTIONS_RANGE), promRange).map(([f, r]) => (f === 'quantile_over_time' ? `${f}(0.9, ${r})` : f === 'predict_linear' ? `${f}(${r}, 60)` : f === 'holt_winters' ? `${f}(${r}, 0.5, 0.5)` : `${f}(${r})`)),
      fc.tuple(pick(PROM_FUNCTIONS_RANGE), inner, pick(DURATIONS), fc.option(pick(DURATIONS), { nil: undefined })).map(([f, e, r, s]) => `${f}((${e})[${r}:${s ?? ''}])`),
      fc.tuple(pick(PROM_FUNCTIONS_INSTANT), fc.array(inner, { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(', ')})`),
      fc.tuple(pick(PROM_AGGREGATIONS), fc.option(fc.tuple(pick(['by', 'without']), fc.array(pick(LABELS), { maxLength: 2 })), { nil: undefined }), fc.option(pick(NUMBERS), { nil: undefined }), inner).map(
        ([op, grouping, param, e]) => `${op}${grouping ? ` ${grouping[0]} (${grouping[1].join(',')})` : ''} (${param === undefined ? '' : `${param}, `}${e})`,
      ),
      fc.tuple(inner, pick(PROM_BINARY), fc.option(pick(['on(job)', 'ignoring(code)', 'on(job) group_left(code)', 'ignoring() group_right']), { nil: undefined }), inner).map(
        ([a, op, vm, b]) => `${a} ${op} ${vm ?? ''} ${b}`,
      ),
      inner.map((e) => `(${e})`),
      inner.map((e) => `-${e}`),
    ),
  };
});

const LOG_SELECTORS = ['{app="api"}', '{app=~"a.*"}', '{level!="debug", app="api"}', '{app="none"}', '{service_name=~".+"}', '{app=~"(a{2}){1000}"}'];
const LINE_FILTERS = ['|= "error"', '!= "debug"', '|~ "err.*"', '!~ "^GET"', '|~ "a{2,50}"', '|= ip("10.0.0.0/8")', '|= "a" or "b"', '|~ "(?i)ERROR"', '|~ "\\\\Q\\\\E*"', '|~ "["'];
const PARSERS = ['| json', '| logfmt', '| json status="response.status"', '| regexp "(?P<method>\\\\w+) (?P<path>\\\\S+)"', '| pattern "<method> <path> <_>"', '| unpack', '| unwrap latency', '| unwrap duration(latency)', '| unwrap bytes(size)'];
const LABEL_FILTERS = ['| level="error"', '| status >= 500', '| latency > 250ms', '| size > 1KB', '| level=~"e.*" or status < 300', '| __error__=""', '| drop level', '| keep app, level', '| decolorize'];
const TEMPLATES = ['{{.level}}', '{{.message | upper}}', '{{ printf "%s-%s" .app .level }}', '{{ __line__ }}', '{{ len .app }}', '{{ .missing.deep }}', '{{ if eq .level "error" }}E{{ else }}O{{ end }}', '{{ range $i, $x := .app }}{{ end }}', '{{ regexReplaceAll "a" .app "b" }}', '{{ toDate "2006-01-02" "2024-05-06" }}', '{{'];
const FORMATTERS = fc.oneof(
  pick(TEMPLATES).map((t) => `| line_format ${JSON.stringify(t)}`),
  fc.tuple(pick(['dst', 'app', 'level']), pick(TEMPLATES)).map(([k, t]) => `| label_format ${k}=${JSON.stringify(t)}`),
  fc.tuple(pick(['dst', 'app']), pick(['level', 'app'])).map(([a, b]) => `| label_format ${a}=${b}`),
);
const LOG_RANGE_FUNCTIONS = ['count_over_time', 'rate', 'bytes_over_time', 'bytes_rate', 'absent_over_time'];
const UNWRAP_RANGE_FUNCTIONS = ['sum_over_time', 'avg_over_time', 'max_over_time', 'min_over_time', 'first_over_time', 'last_over_time', 'stddev_over_time', 'rate_counter', 'quantile_over_time'];
const LOG_AGGREGATIONS = ['sum', 'avg', 'min', 'max', 'count', 'topk', 'bottomk', 'stddev', 'sort', 'sort_desc', 'approx_topk'];

const pipeline = fc.array(fc.oneof(pick(LINE_FILTERS), pick(PARSERS), pick(LABEL_FILTERS), FORMATTERS), { maxLength: 5 }).map((stages) => stages.join(' '));
const logQuery = fc.tuple(pick(LOG_SELECTORS), pipeline).map(([s, p]) => `${s} ${p}`.trim());
const logRange = fc.oneof(
  fc.tuple(pick(LOG_RANGE_FUNCTIONS), logQuery, pick(DURATIONS), fc.option(pick(['offset 5m']), { nil: undefined })).map(([f, q, d, o]) => `${f}(${q} [${d}]${o ? ` ${o}` : ''})`),
  fc.tuple(pick(UNWRAP_RANGE_FUNCTIONS), logQuery, pick(['| unwrap latency', '| unwrap bytes(size)']), pick(DURATIONS)).map(
    ([f, q, u, d]) => `${f}(${f === 'quantile_over_time' ? '0.99, ' : ''}${q} ${u} [${d}])${f === 'rate_counter' ? '' : ' by (app)'}`,
  ),
);

const { logExpr } = fc.letrec<{ logExpr: string }>((tie) => {
  const inner = tie('logExpr') as fc.Arbitrary<string>;
  return {
    logExpr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      logRange,
      fc.tuple(pick(LOG_AGGREGATIONS), fc.option(fc.tuple(pick(['by', 'without']), fc.array(pick(['app', 'level', 'status']), { maxLength: 2 })), { nil: undefined }), inner).map(
        ([op, g, e]) => `${op}${g ? ` ${g[0]} (${g[1].join(',')})` : ''} (${op.endsWith('topk') || op === 'bottomk' ? '3, ' : ''}${e})`,
      ),
      fc.tuple(inner, pick(['+', '-', '*', '/', '>', '== bool', 'and', 'or', 'unless']), inner).map(([a, op, b]) => `${a} ${op} ${b}`),
      pick(NUMBERS),
      fc.tuple(pick(['label_replace']), inner).map(([f, e]) => `${f}(${e}, "dst", "$1", "app", "(.*)")`),
    ),
  };
});

/** mutate damages a well-formed expression the way typing does: inserted, dropped or cut characters. */
function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const noise = fc.constantFrom('(', ')', '{', '}', '[', ']', '"', '`', '\\', '|', ',', '=~', '-', ' ', '\n', '\u0000', '\uffff', '😀', '#', '@', ':', '.');
  return fc.tuple(base, fc.nat(), noise, fc.constantFrom('insert', 'delete', 'truncate', 'repeat')).map(([s, at, ch, how]) => {
    const i = s.length === 0 ? 0 : at % s.length;
    switch (how) {
      case 'insert':
        return s.slice(0, i) + ch + s.slice(i);
      case 'delete':
        return s.slice(0, i) + s.slice(i + 1);
      case 'truncate':
        return s.slice(0, i);
      default:
        return s.slice(0, i) + ch.repeat(200) + s.slice(i);
    }
  });
}

export const promqlExpression: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: promExpr }, { weight: 1, arbitrary: mutated(promExpr) });
export const logqlExpression: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: logExpr },
  { weight: 2, arbitrary: logQuery },
  { weight: 1, arbitrary: mutated(fc.oneof(logExpr, logQuery)) },
);
