import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ToolError, type CallContext } from './driver.js';
import type { DriverState } from './gateway.js';

export const SERVER_VERSION = '0.1.0';

/**
 * createMcpServer builds the MCP server one request is answered by: the driver's tools and
 * prompts bound to the caller's org and request. An inactive integration keeps its tool
 * list (without output schemas, since its answers are empty) and answers every call with an
 * empty result that says why, so an agent learns what to ask an operator for.
 */
export function createMcpServer(state: DriverState, ctx: CallContext): Server {
  const { driver, active } = state;
  const hasPrompts = driver.listPrompts !== undefined && driver.listPrompts().length > 0;
  const server = new Server(
    { name: `sluice-${driver.name}`, title: `Sluice ${driver.name}`, version: SERVER_VERSION },
    { capabilities: hasPrompts ? { tools: {}, prompts: {} } : { tools: {} }, instructions: driver.description },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (!active) return { tools: await inactiveTools(state, ctx) };
    try {
      return { tools: await driver.listTools(ctx) };
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, err instanceof ToolError ? err.message : `cannot list the tools of ${driver.name}`);
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const signal = AbortSignal.any([ctx.signal, extra.signal]);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!active) return inactiveResult(state);
    return driver.callTool(request.params.name, args, { ...ctx, signal });
  });
  if (hasPrompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: driver.listPrompts!() }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      const prompt = driver.getPrompt?.(request.params.name, request.params.arguments ?? {});
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt "${request.params.name}"`);
      return prompt;
    });
  }
  return server;
}

/** inactiveTools lists what the driver would offer, stripped of output schemas; a remote driver's upstream is not asked. */
async function inactiveTools(state: DriverState, ctx: CallContext): Promise<Tool[]> {
  if (state.driver.remote) return [];
  try {
    const tools = await state.driver.listTools(ctx);
    return tools.map(({ outputSchema: _outputSchema, ...tool }) => tool);
  } catch {
    return [];
  }
}

function inactiveResult(state: DriverState): CallToolResult {
  const why = state.record ? (state.record.enabled ? 'is not fully configured' : 'is disabled') : 'is not configured';
  return {
    content: [
      {
        type: 'text',
        text: `No results: the "${state.driver.name}" integration ${why} for this org. An operator enables it with 'sluice integrations enable ORG ${state.driver.name}' (or 'set' to configure it).`,
      },
    ],
    structuredContent: { results: [], inactive: true },
  };
}
