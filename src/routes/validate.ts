import {
  EngineError,
  checkLogQL,
  lineColAt,
  logqlQueryKind,
  parseAndCheckPromQL,
  parseLogQL,
  printLogQL,
  printPromQL,
  promqlValueType,
} from '../../engine/index.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { requireObject, requireQueryText } from '../query/request.js';

/**
 * The validate endpoints let editors and linters check an expression without running it.
 * Checking is their job, so an invalid expression is a successful answer (200 with
 * `valid: false`) carrying the parser's positioned error; only a malformed request is an error
 * response.
 *
 *   200 {"valid": true, "kind": "...", "canonical": "..."}
 *   200 {"valid": false, "error": {"code", "message", "position": {start, end, line, col}}}
 */
type Validated = { kind: string; canonical: string };

function validateRoute(path: string, check: (q: string) => Validated): RouteSpec {
  return {
    method: 'POST',
    path,
    auth: 'key',
    body: 'json',
    handler: (ctx: RequestContext) => {
      const q = requireQueryText(requireObject(parseJsonBody(ctx.body!)));
      try {
        ctx.res.json(200, { valid: true, ...check(q) });
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        const start = err.position?.start ?? 0;
        const { line, col } = lineColAt(q, start);
        ctx.res.json(200, {
          valid: false,
          error: { code: err.code, message: err.message, position: { start, end: err.position?.end ?? start, line, col } },
        });
      }
    },
  };
}

export function validateRoutes(): RouteSpec[] {
  return [
    validateRoute('/api/v1/promql/validate', (q) => {
      const expr = parseAndCheckPromQL(q);
      return { kind: promqlValueType(expr), canonical: printPromQL(expr) };
    }),
    validateRoute('/api/v1/logql/validate', (q) => {
      const expr = parseLogQL(q);
      checkLogQL(expr, q);
      return { kind: logqlQueryKind(expr), canonical: printLogQL(expr) };
    }),
  ];
}
