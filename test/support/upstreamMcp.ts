import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../bench/peers/processes.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A stand-in for a product's own MCP server (an issue tracker, say), run on loopback with the
 * real SDK server in stateless mode, the way forwarding drivers meet it in production. It
 * checks the credential the gateway injects, records what it was asked, and has tools that
 * misbehave on purpose: `slow` never answers, `crash` kills the connection mid-answer, `hangup`
 * before answering and `vanish` ends the response without the result.
 */

export const UPSTREAM_TOOLS: Tool[] = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Returns its text argument. Example: {"text": "hi"}',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'search_issues',
    title: 'Search issues',
    description: 'Finds issues whose title contains the query. Example: {"query": "timeout", "limit": 5}',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { issues: { type: 'array', items: { type: 'object' } } },
      required: ['issues'],
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    _meta: { 'example.com/category': 'search' },
  },
  {
    name: 'slow',
    description: 'Never answers.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'crash',
    description: 'Starts answering (one log event on the response stream), then drops the connection.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'hangup',
    description: 'Drops the connection before any response.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'vanish',
    description: 'Starts answering, then ends the response cleanly without the result.',
    inputSchema: { type: 'object', properties: {} },
  },
];

export const UPSTREAM_ISSUES = [
  { key: 'OPS-1', title: 'checkout latency spike after deploy', state: 'open' },
  { key: 'OPS-2', title: 'payments timeout to the card gateway', state: 'open' },
  { key: 'OPS-3', title: 'search timeout under load', state: 'closed' },
];

export interface UpstreamMcpOptions {
  /** authorization is the exact Authorization header every request must carry; default `Bearer secret`. */
  authorization?: string;
  /** pageSize splits tools/list into pages of that many tools; default one page. */
  pageSize?: number;
  /** extraTools are listed after the built-in ones (and answer like echo), to make long lists. */
  extraTools?: number;
  /** jsonResponse answers with plain JSON bodies instead of an event stream per request. */
  jsonResponse?: boolean;
  /**
   * stateful hands out MCP session ids and keeps a server per session until the client deletes
   * it, like servers built on the SDK's session pattern; the default is stateless.
   */
  stateful?: boolean;
}

export interface UpstreamMcp {
  /** url is the MCP endpoint, `http://127.0.0.1:{port}/mcp`. */
  url: string;
  /** calls are the tools/call requests that reached a handler, in order. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** authorizations are the Authorization headers of every HTTP request, accepted or not. */
  authorizations: Array<string | undefined>;
  /** rejected counts requests refused for a missing or wrong credential. */
  rejected: number;
  /** listPages counts tools/list requests answered. */
  listPages: number;
  /** inFlight counts HTTP requests whose response has not closed yet: 0 once a caller hung up. */
  inFlight: number;
  /** openSessions counts MCP sessions not yet deleted (stateful mode only). */
  readonly openSessions: number;
  close(): Promise<void>;
}

/** startUpstreamMcp starts the stand-in on a free loopback port. */
export async function startUpstreamMcp(options: UpstreamMcpOptions = {}): Promise<UpstreamMcp> {
  const expected = options.authorization ?? 'Bearer secret';
  const tools: Tool[] = [...UPSTREAM_TOOLS];
  for (let i = 0; i < (options.extraTools ?? 0); i++) {
    tools.push({ name: `extra_${i}`, description: 'Echo under another name.', inputSchema: { type: 'object', properties: {} } });
  }
  const pageSize = options.pageSize ?? tools.length;
  // Handlers of `slow` park here until the stand-in closes, so none outlives the test.
  const parked = new Set<() => void>();

  const state: UpstreamMcp = {
    url: '',
    calls: [],
    authorizations: [],
    rejected: 0,
    listPages: 0,
    inFlight: 0,
    get openSessions() {
      return sessions.size;
    },
    close: async () => undefined,
  };

  // Stateful mode keeps one server per MCP session, answering on that session's latest request.
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; res: http.ServerResponse }>();

  function mcpServerFor(responseOf: () => http.ServerResponse): McpServer {
    const mcp = new McpServer({ name: 'stand-in-tracker', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
    // The low-level handlers take the tools' JSON schemas as they are, as a product server would.
    mcp.server.setRequestHandler(ListToolsRequestSchema, (request) => {
      state.listPages += 1;
      const start = request.params?.cursor ? Number(request.params.cursor) : 0;
      const page = tools.slice(start, start + pageSize);
      const next = start + pageSize < tools.length ? String(start + pageSize) : undefined;
      return next === undefined ? { tools: page } : { tools: page, nextCursor: next };
    });
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      state.calls.push({ name: request.params.name, arguments: args });
      switch (request.params.name) {
        case 'echo':
          return { content: [{ type: 'text', text: String(args.text) }], structuredContent: { text: args.text } };
        case 'search_issues': {
          const query = String(args.query ?? '').toLowerCase();
          const limit = typeof args.limit === 'number' ? args.limit : 10;
          const issues = UPSTREAM_ISSUES.filter((i) => i.title.includes(query)).slice(0, limit);
          return { content: [{ type: 'text', text: JSON.stringify(issues) }], structuredContent: { issues } };
        }
        case 'slow':
          await new Promise<void>((resolve) => {
            parked.add(resolve);
            extra.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          return { content: [{ type: 'text', text: 'too late' }] };
        case 'crash':
        case 'vanish':
          // A log event puts the response stream on the wire, so the answer is cut off mid-stream.
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working on it' } });
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (request.params.name === 'crash') responseOf().socket?.destroy();
          else responseOf().end();
          return new Promise<CallToolResult>(() => undefined);
        case 'hangup':
          responseOf().socket?.destroy();
          return new Promise<CallToolResult>(() => undefined);
        default:
          if (request.params.name.startsWith('extra_')) return { content: [{ type: 'text', text: request.params.name }] };
          throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      }
    });
    return mcp;
  }

  async function serveStateful(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown session');
        return;
      }
      if (req.method === 'POST') session.res = res;
      await session.transport.handleRequest(req, res);
      return;
    }
    const entry = { res } as { transport: StreamableHTTPServerTransport; res: http.ServerResponse };
    const mcp = mcpServerFor(() => entry.res);
    entry.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponse ?? false,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, entry);
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
        void mcp.close();
      },
    });
    await mcp.connect(entry.transport);
    await entry.transport.handleRequest(req, res);
  }

  const server = http.createServer((req, res) => {
    state.inFlight += 1;
    res.on('close', () => {
      state.inFlight -= 1;
    });
    void (async () => {
      const presented = req.headers.authorization;
      state.authorizations.push(presented);
      if (req.url?.split('?')[0] !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      if (presented !== expected) {
        state.rejected += 1;
        // Echoing the presented credential is careless but real; the gateway must not pass it on.
        res
          .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
          .end(JSON.stringify({ error: 'unauthorized', detail: `credential ${JSON.stringify(presented ?? null)} is not valid` }));
        return;
      }
      if (options.stateful) {
        await serveStateful(req, res);
        return;
      }
      if (req.method !== 'POST') {
        // Stateless: no standalone event stream and no sessions to delete.
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const mcp = mcpServerFor(() => res);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.jsonResponse ?? false });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/mcp`;
  state.close = async () => {
    for (const resolve of parked) resolve();
    parked.clear();
    for (const session of sessions.values()) void session.transport.close();
    sessions.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** freeLoopbackUrl is an MCP URL on a loopback port nothing listens on. */
export async function freeLoopbackUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}/mcp`;
}
