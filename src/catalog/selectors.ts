import { checkLogQL, parseAndCheckPromQL, parseLogQL, syntaxError, type LabelMatcher } from '../../engine/index.js';

/**
 * Catalog listings are scoped with the same selectors users write in queries: a PromQL series
 * selector for metrics (`up{job="api"}`) and a LogQL stream selector for logs
 * (`{service_name="api"}`). They are parsed by the engine's own parsers, so a bad selector
 * gets the same positioned INVALID_EXPR a bad query would.
 */

/** parseSeriesSelector turns a PromQL series selector into storage matchers. */
export function parseSeriesSelector(text: string): LabelMatcher[] {
  const expr = parseAndCheckPromQL(text);
  if (expr.type !== 'VectorSelector' || expr.offsetMs !== 0 || expr.at !== null) {
    throw syntaxError(text, [
      { message: 'match must be a series selector such as up{job="api"}, without functions, ranges, offset or @', position: expr.pos },
    ]);
  }
  return expr.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
}

/** parseStreamSelector turns a LogQL stream selector into storage matchers; pipelines are refused. */
export function parseStreamSelector(text: string): LabelMatcher[] {
  const expr = parseLogQL(text);
  checkLogQL(expr, text);
  if (expr.kind !== 'LogSelector') {
    throw syntaxError(text, [{ message: 'match must be a stream selector such as {service_name="api"}, not a metric query', position: expr.pos }]);
  }
  if (expr.pipeline.length > 0) {
    const first = expr.pipeline[0].pos;
    throw syntaxError(text, [
      { message: 'match must be a stream selector only; line filters and other pipeline stages are not supported here', position: { start: first.start, end: expr.pos.end } },
    ]);
  }
  return expr.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
}
