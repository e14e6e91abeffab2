import type { CallToolResult, GetPromptResult, Prompt, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { IntegrationRecord } from '../meta/types.js';

/**
 * The tool gateway's building blocks. A driver is one integration kind (telemetry, common,
 * kube, an upstream MCP server...) served at `/api/orgs/{orgId}/integrations/{driver}/mcp`.
 * Most drivers are a table of tools; upstream drivers list and call whatever the configured
 * server offers. Every request builds a fresh MCP server over the driver (the gateway is
 * stateless), so a driver holds no per-client state.
 */

/** JsonSchema is a JSON Schema object as MCP carries it: `type: "object"` at the top. */
export interface JsonSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

/** CallContext is what a tool call may use besides its arguments. */
export interface CallContext {
  orgId: string;
  /**
   * integration is the org's stored configuration of this driver; undefined when the operator
   * never configured it (telemetry and common need none).
   */
  integration: IntegrationRecord | undefined;
  /** headers are the request headers, lowercased names; `x-kube-cluster` picks a cluster. */
  headers: Record<string, string>;
  /** signal aborts when the client leaves or the call's deadline passes. */
  signal: AbortSignal;
  log: Logger;
}

/** ToolSpec is one tool of a table driver: its public definition and its implementation. */
export interface ToolSpec {
  name: string;
  title: string;
  /** description is what an agent reads to decide when to call it: short, with an example. */
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /**
   * handler runs the tool. Arguments were validated against inputSchema already. Throwing
   * ToolError (or anything) becomes an `isError` result; a handler never answers HTTP errors.
   */
  handler(args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult>;
}

/** PromptSpec is one MCP prompt: a ready-made investigation that chains the driver's tools. */
export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  arguments?: Array<{ name: string; description: string; required?: boolean }>;
  render(args: Record<string, string>): GetPromptResult;
}

/**
 * Driver is what the gateway serves for one integration name. `listTools` and `callTool`
 * receive the call context so upstream drivers can reach their configured server.
 */
export interface Driver {
  /** name is the `{driver}` path segment and the discovery `type`. */
  name: string;
  /** description says what the integration offers; shown in discovery. */
  description: string;
  /** enabledByDefault drivers (telemetry, common) are active for every org unless disabled. */
  enabledByDefault: boolean;
  /**
   * configured tells whether a stored record is enough to activate the driver (an upstream
   * driver needs a URL, kube a kubeconfig); the gateway lists the driver in discovery only then.
   */
  configured(record: IntegrationRecord): boolean;
  /**
   * remote drivers learn their tools from an upstream server. An inactive remote driver lists
   * none, so disabling an integration stops all traffic to its upstream.
   */
  remote?: boolean;
  listTools(ctx: CallContext): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult>;
  listPrompts?(): Prompt[];
  getPrompt?(name: string, args: Record<string, string>): GetPromptResult | undefined;
}

/**
 * ToolError is a failure the caller can act on: its message is shown to the model as the
 * tool's error text, so it says what to change ("the window is too short for rate; use...").
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** textResult is a successful result with one text block and, when given, structured content. */
export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

/** errorResult is a tool-level failure: the call itself succeeded, the tool reports why it could not answer. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
