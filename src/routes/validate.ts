import { parseJsonBody } from '../http/body.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { requireObject, requireQueryText } from '../query/request.js';
import { checkExpression, type QueryLanguage } from '../query/validation.js';

/**
 * The validate endpoints let editors and linters check an expression without running it.
 * Checking is their job, so an invalid expression is a successful answer (200 with
 * `valid: false`) carrying the parser's positioned error; only a malformed request is an error
 * response.
 *
 *   200 {"valid": true, "kind": "...", "canonical": "..."}
 *   200 {"valid": false, "error": {"code", "message", "position": {start, end, line, col}}}
 */
function validateRoute(path: string, language: QueryLanguage): RouteSpec {
  return {
    method: 'POST',
    path,
    auth: 'key',
    body: 'json',
    handler: (ctx: RequestContext) => {
      const q = requireQueryText(requireObject(parseJsonBody(ctx.body!)));
      ctx.res.json(200, checkExpression(language, q));
    },
  };
}

export function validateRoutes(): RouteSpec[] {
  return [validateRoute('/api/v1/promql/validate', 'promql'), validateRoute('/api/v1/logql/validate', 'logql')];
}
