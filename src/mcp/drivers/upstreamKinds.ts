/**
 * The forwarding integrations this installation knows, without the forwarding machinery: the
 * CLI lists and configures them and must not load the MCP client to do so.
 */

/** UpstreamKind is one forwarding integration: its driver name and what it offers. */
export interface UpstreamKind {
  name: string;
  description: string;
}

export const UPSTREAM_KINDS: UpstreamKind[] = [
  { name: 'code', description: "Code hosting: code search, file read, pull request and issue lookup, through the provider's MCP server" },
  { name: 'issues', description: "Issue tracking: issue search and read, through the tracker's MCP server" },
  { name: 'chat', description: "Chat: read messages and post to channels, through the chat product's MCP server" },
  { name: 'incidents', description: "Incident ticketing: incident lookup, through the ticketing product's MCP server" },
  { name: 'warehouse', description: "Data warehouse: schema browsing and queries, through the warehouse's MCP server" },
  { name: 'collector', description: "Collector editor: read and change telemetry collector configuration, through the editor's MCP server" },
];
