import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { requireOrgAccess } from '../auth/orgAccess.js';
import { ApiError } from '../errors.js';
import type { Handler, RequestContext, RouteSpec } from '../http/router.js';
import { sendWebResponse, toWebRequest } from '../http/webBridge.js';
import type { MetaStore } from '../meta/types.js';
import type { ToolGateway } from './gateway.js';
import { createMcpServer } from './mcpServer.js';

export interface GatewayRouteDeps {
  store: MetaStore;
  gateway: ToolGateway;
  /** callTimeoutMs bounds one MCP request (a batch included); tools see it through their signal. */
  callTimeoutMs: number;
}

const BASE = '/api/orgs/:orgId/integrations';

/**
 * The tool gateway's HTTP surface (seed 002): discovery of an org's active integrations and
 * one MCP streamable-HTTP endpoint per driver. Both take the API key in the X-Svc-API-Key
 * header or the `apiKey` query parameter; an org key reaches its own org, the system key any
 * org. The MCP endpoint is stateless: every POST builds a fresh server over the driver, so any
 * replica answers any request and there is no session to resume (GET) or end (DELETE).
 */
export function gatewayRoutes(deps: GatewayRouteDeps): RouteSpec[] {
  return [
    { method: 'GET', path: BASE, auth: 'key', queryKey: true, handler: (ctx) => discovery(ctx, deps) },
    { method: 'POST', path: `${BASE}/:driver/mcp`, auth: 'key', queryKey: true, body: 'raw', handler: (ctx) => mcpRequest(ctx, deps) },
    { method: 'GET', path: `${BASE}/:driver/mcp`, auth: 'none', handler: stateless },
    { method: 'DELETE', path: `${BASE}/:driver/mcp`, auth: 'none', handler: stateless },
  ];
}

/** stateless answers GET and DELETE: with no sessions there is nothing to stream or end. */
const stateless: Handler = () => {
  throw new ApiError('METHOD_NOT_ALLOWED', 'this MCP endpoint is stateless: send JSON-RPC messages with POST; there is no server stream to open (GET) or session to end (DELETE)', {
    headers: { allow: 'POST' },
  });
};

/**
 * discovery lists the org's active integrations. The system key asking for an org this
 * installation does not have gets an empty list, one of the two answers the spec gives for a
 * wrong org id; an org key asking for another org is Forbidden.
 */
async function discovery(ctx: RequestContext, deps: GatewayRouteDeps): Promise<void> {
  const orgId = ctx.params.orgId;
  if (ctx.principal?.kind === 'system' && !(await deps.store.getOrg(orgId))) {
    ctx.res.json(200, { integrations: [] });
    return;
  }
  await requireOrgAccess(ctx.principal, orgId, deps.store, 'integrations');
  const active = await deps.gateway.active(orgId);
  ctx.res.json(200, {
    integrations: active.map(({ driver }) => ({
      type: driver.name,
      description: driver.description,
      path: `/api/orgs/${orgId}/integrations/${driver.name}/mcp`,
    })),
  });
}

/**
 * responseMode reads what the client accepts: JSON when it takes JSON (or says nothing), an
 * event stream when it takes only that. The SDK insists on both in Accept, so the request it
 * sees always lists both and the mode is chosen here.
 */
function responseMode(accept: string | undefined): 'json' | 'sse' {
  const value = (accept ?? '').toLowerCase();
  if (value.trim() === '' || value.includes('application/json') || value.includes('*/*') || value.includes('application/*')) return 'json';
  if (value.includes('text/event-stream')) return 'sse';
  throw new ApiError('SSE_UNSUPPORTED', `cannot answer with ${accept}: send Accept: application/json or text/event-stream`);
}

async function mcpRequest(ctx: RequestContext, deps: GatewayRouteDeps): Promise<void> {
  const mode = responseMode(ctx.headers.accept);
  const orgId = await requireOrgAccess(ctx.principal, ctx.params.orgId, deps.store, 'integrations', 'FORBIDDEN');
  const state = await deps.gateway.state(orgId, ctx.params.driver);
  if (!state) {
    throw new ApiError('NOT_FOUND', `no integration driver named "${ctx.params.driver}"; this installation offers ${deps.gateway.names().join(', ')}`);
  }
  const controller = new AbortController();
  ctx.res.onAbort(() => controller.abort(new Error('client closed the connection')));
  const timer = setTimeout(() => controller.abort(new Error(`the request exceeded ${deps.callTimeoutMs} ms`)), deps.callTimeoutMs);
  const server = createMcpServer(state, { orgId, integration: state.record, headers: ctx.headers, signal: controller.signal, log: ctx.log });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' });
  try {
    await server.connect(transport);
    const request = toWebRequest(ctx, { accept: 'application/json, text/event-stream' });
    const response = await transport.handleRequest(request);
    await sendWebResponse(ctx, response);
  } finally {
    clearTimeout(timer);
    await server.close().catch(() => {});
  }
}
