/**
 * Input schema pieces the telemetry tools share, so every tool names and explains a window,
 * a budget or a selector the same way (and the tool list stays small).
 */
export const START = { type: 'string', description: 'Window start: now-1h (default), RFC 3339, or epoch s/ms.' } as const;
export const END = { type: 'string', description: 'Window end: now (default), RFC 3339, or epoch s/ms.' } as const;
export const MAX_TOKENS = { type: 'integer', minimum: 500, maximum: 25000, description: 'Output budget in tokens (default 6000).' } as const;
export const LIMIT = (def: number, max: number) => ({ type: 'integer', minimum: 1, maximum: max, description: `Max items (default ${def}).` }) as const;
export const SIGNAL = { type: 'string', enum: ['logs', 'metrics'], description: 'Which data to look at.' } as const;

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false, idempotentHint: true } as const;

/** windowOutput is the output schema of the window every answer echoes. */
export const WINDOW_OUTPUT = {
  type: 'object',
  properties: { start: { type: 'string' }, end: { type: 'string' }, stepSeconds: { type: 'number' } },
} as const;
