import { CallToolResultSchema, ResultSchema, ToolSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { IntegrationRecord } from '../../meta/types.js';
import { ToolError, errorResult, type CallContext, type Driver } from '../driver.js';
import { UpstreamFailure } from './upstreamErrors.js';
import type { UpstreamKind } from './upstreamKinds.js';
import { withUpstream } from './upstreamSession.js';

/**
 * Forwarding drivers: integrations whose products ship their own MCP server. Sluice does not
 * reimplement their tools; it connects to the org's configured server with the stored
 * credentials and passes tools/list and tools/call through, so the caller sees the product's
 * own tools while the credentials stay on this side. A broken upstream never breaks the
 * gateway: calls become tool errors naming the integration, listings a ToolError the gateway
 * turns into a JSON-RPC error.
 */

export { UPSTREAM_KINDS, type UpstreamKind } from './upstreamKinds.js';

export interface UpstreamDriverOptions {
  /** timeoutMs bounds each whole upstream interaction, connect included; default 15000. */
  timeoutMs?: number;
}

/**
 * MAX_PAGES bounds tools/list pagination: a real server's tool list fits in a few pages, and a
 * server that keeps handing out cursors must not hold the listing until the deadline.
 */
const MAX_PAGES = 20;

/** upstreamDriver builds the forwarding driver of one kind. */
export function upstreamDriver(kind: UpstreamKind, options: UpstreamDriverOptions = {}): Driver {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    name: kind.name,
    description: kind.description,
    // Nothing to forward to until an operator stores a URL.
    enabledByDefault: false,
    configured: (record: IntegrationRecord) => typeof record.url === 'string' && record.url.trim() !== '',
    remote: true,

    async listTools(ctx: CallContext): Promise<Tool[]> {
      try {
        return await withUpstream(kind.name, ctx, timeoutMs, 'tools/list', async (client, bound) => {
          // An upstream without tools (prompts or resources only) offers none; asking would only earn an error.
          if (!client.getServerCapabilities()?.tools) return [];
          const tools: Tool[] = [];
          const seen = new Set<string>();
          let cursor: string | undefined;
          for (let page = 0; page < MAX_PAGES; page++) {
            // The loose result schema keeps each tool exactly as sent; each is checked below on its own.
            const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema, bound());
            const listed = (result as { tools?: unknown }).tools;
            if (!Array.isArray(listed)) throw new Error('the answer has no tools array');
            for (const tool of listed) {
              if (ToolSchema.safeParse(tool).success) tools.push(tool as Tool);
              else ctx.log.warn({ integration: kind.name, tool: (tool as { name?: unknown } | null)?.name }, 'upstream tool skipped: not a valid MCP tool definition');
            }
            const next = (result as { nextCursor?: unknown }).nextCursor;
            if (typeof next !== 'string' || next === '' || seen.has(next)) return tools;
            seen.add(next);
            cursor = next;
          }
          ctx.log.warn({ integration: kind.name, pages: MAX_PAGES, tools: tools.length }, 'upstream tools/list still paginating; the rest is left out');
          return tools;
        });
      } catch (err) {
        throw new ToolError(err instanceof UpstreamFailure ? err.message : `integration "${kind.name}": tools/list failed`);
      }
    },

    async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
      try {
        return await withUpstream(kind.name, ctx, timeoutMs, `tools/call "${name}"`, (client, bound) =>
          client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, bound()),
        );
      } catch (err) {
        return errorResult(err instanceof UpstreamFailure ? err.message : `integration "${kind.name}": tools/call "${name}" failed`);
      }
    },
  };
}
