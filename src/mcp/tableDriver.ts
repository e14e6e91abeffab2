import type { CallToolResult, GetPromptResult, Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import AjvModule, { type ValidateFunction } from 'ajv';
import type { IntegrationRecord } from '../meta/types.js';
import { ToolError, errorResult, type CallContext, type Driver, type PromptSpec, type ToolSpec } from './driver.js';

/** Ajv is the CommonJS default export of ajv, reached the same way under the compiler and at run time. */
const Ajv = AjvModule.default;

export interface TableDriverOptions {
  name: string;
  description: string;
  enabledByDefault: boolean;
  /** configured defaults to "always": a record that exists and is enabled activates the driver. */
  configured?: (record: IntegrationRecord) => boolean;
  tools: ToolSpec[];
  prompts?: PromptSpec[];
  /**
   * guard runs before every tool call, ahead of the argument checks, and throws ToolError to
   * refuse (the kube driver refuses calls without a cluster header this way).
   */
  guard?: (tool: string, ctx: CallContext) => void;
  /**
   * prepare runs before every valid tool call, for what the tools read synchronously (a query
   * process fetches the org's heads). It may answer warnings (recent data that could not be
   * read), which are added to the tool's result as a text item so the caller knows it is partial.
   */
  prepare?: (ctx: CallContext) => Promise<readonly string[] | void>;
}

/**
 * tableDriver builds a Driver from a table of tools. Arguments are checked against each
 * tool's input schema before its handler runs, so handlers see well-typed input and a model
 * that sent a bad argument gets an error naming it. A failing handler becomes an `isError`
 * result with its message; the MCP call itself still succeeds.
 */
export function tableDriver(options: TableDriverOptions): Driver {
  const ajv = new Ajv({ allErrors: false, strict: false, useDefaults: true, coerceTypes: false });
  const byName = new Map<string, { spec: ToolSpec; validate: ValidateFunction }>();
  for (const spec of options.tools) {
    if (byName.has(spec.name)) throw new Error(`driver ${options.name}: duplicate tool ${spec.name}`);
    byName.set(spec.name, { spec, validate: ajv.compile(spec.inputSchema) });
  }
  const tools: Tool[] = options.tools.map((spec) => {
    const tool: Tool = { name: spec.name, title: spec.title, description: spec.description, inputSchema: spec.inputSchema };
    if (spec.outputSchema) tool.outputSchema = spec.outputSchema;
    if (spec.annotations) tool.annotations = { title: spec.title, ...spec.annotations };
    return tool;
  });
  const prompts = new Map((options.prompts ?? []).map((p) => [p.name, p]));
  return {
    name: options.name,
    description: options.description,
    enabledByDefault: options.enabledByDefault,
    configured: options.configured ?? (() => true),
    listTools: async () => tools,
    async callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
      const entry = byName.get(name);
      if (!entry) return errorResult(`unknown tool "${name}"; this integration offers: ${[...byName.keys()].join(', ')}`);
      try {
        options.guard?.(name, ctx);
        const input = structuredClone(args);
        if (!entry.validate(input)) {
          const first = entry.validate.errors?.[0];
          const where = first?.instancePath ? `argument ${first.instancePath.slice(1).replace(/\//g, '.')}` : 'arguments';
          return errorResult(`invalid ${where}: ${first?.message ?? 'does not match the input schema'}`);
        }
        const warnings = (await options.prepare?.(ctx)) ?? [];
        const result = await entry.spec.handler(input, ctx);
        if (warnings.length === 0) return result;
        return { ...result, content: [...result.content, ...warnings.map((w) => ({ type: 'text' as const, text: `warning: ${w}` }))] };
      } catch (err) {
        if (err instanceof ToolError) return errorResult(err.message);
        if (ctx.signal.aborted) return errorResult(`the call was cancelled: ${String((ctx.signal.reason as Error | undefined)?.message ?? 'deadline passed')}`);
        // An unexpected exception's text stays in the log; the caller gets the code and the query id.
        const queryId = (ctx.log.bindings() as { queryId?: string }).queryId;
        ctx.log.error({ err, tool: name, code: 'INTERNAL_ERROR' }, 'tool failed');
        return errorResult(`${name} failed with an internal error (code INTERNAL_ERROR${queryId === undefined ? '' : `, query id ${queryId}`}); the server log has the details`);
      }
    },
    listPrompts: (): Prompt[] =>
      [...prompts.values()].map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments })),
    getPrompt: (name: string, args: Record<string, string>): GetPromptResult | undefined => prompts.get(name)?.render(args),
  };
}
