import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * connectMcp opens the MCP SDK's own Client over streamable HTTP to one driver endpoint of the
 * tool gateway, authenticated with `key` in the X-Svc-API-Key header, plus any extra headers.
 */
export async function connectMcp(baseUrl: string, orgId: string, driver: string, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const url = new URL(`${baseUrl}/api/orgs/${orgId}/integrations/${driver}/mcp`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-svc-api-key': key, ...headers } } });
  const client = new Client({ name: 'sluice-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** textOf joins the text blocks of a tool result. */
export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

/** rpc posts raw JSON-RPC to a gateway endpoint, for what the SDK client never sends (batches, odd Accept headers). */
export async function rpc(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
