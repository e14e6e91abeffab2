import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Command describes one CLI subcommand. Options are declared once and drive both argument
 * parsing and the `--help` text, so help never drifts from what is accepted.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  short?: string;
  /** valueName is how help shows the value: `--org ID`. */
  valueName?: string;
  /** multiple lets a string option repeat (`--header A=1 --header B=2`); its value is then a list. */
  multiple?: boolean;
}

/** OptionValues are parsed options: strings, booleans, or lists for options that repeat. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** details is extra help text (for serve, the environment variables). */
  details?: () => string;
  run(values: OptionValues, positionals: string[]): Promise<number>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function commandHelp(cmd: Command): string {
  const lines = [`Usage: ${cmd.usage}`, '', cmd.summary, '', 'Options:'];
  const entries = Object.entries({ ...cmd.options, help: { type: 'boolean', description: 'Show this help.', short: 'h' } as OptionSpec });
  const rendered = entries.map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    return [flag, spec.description] as const;
  });
  const width = Math.max(...rendered.map(([flag]) => flag.length)) + 2;
  for (const [flag, description] of rendered) lines.push(`  ${flag.padEnd(width)}${description}`);
  if (cmd.details) lines.push('', cmd.details());
  return lines.join('\n');
}

/** parseCommandArgs parses argv for `cmd`, rejecting unknown options with a usage error. */
export function parseCommandArgs(cmd: Command, argv: string[]): { values: OptionValues; positionals: string[] } {
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(cmd.options)) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: parsed.values as OptionValues, positionals: parsed.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
