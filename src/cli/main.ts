#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.js';
import { packageRoot } from '../packageRoot.js';
import { StartupError } from '../startupError.js';
import { UwsUnavailableError } from '../http/uws.js';
import { keysCreate, keysList, keysRevoke, orgsCreate, orgsList, orgsSet, orgsShow } from './admin.js';
import { UsageError, commandHelp, parseCommandArgs, type Command } from './command.js';
import { conformanceLogql, conformancePromql } from './conformance.js';
import { gen } from './gen.js';
import { integrationsDisable, integrationsEnable, integrationsList, integrationsSet } from './integrations.js';
import { serve } from './serve.js';

/** COMMANDS is the whole CLI; `sluice --help` lists it and each entry documents itself. */
const COMMANDS: Command[] = [serve, gen, orgsCreate, orgsList, orgsSet, orgsShow, keysCreate, keysList, keysRevoke, integrationsList, integrationsEnable, integrationsDisable, integrationsSet, conformancePromql, conformanceLogql];

/** version is the package's version, read from the package.json the CLI was installed with. */
function version(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return `sluice ${pkg.version} (node ${process.versions.node})`;
}

/** groupHelp lists the subcommands of a command group (`sluice keys --help`). */
function groupHelp(group: string, commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `Usage: sluice ${group} <command> [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary.split('. ')[0].replace(/\.$/, '')}`),
    '',
    `Run 'sluice ${group} <command> --help' for a command's options.`,
  ].join('\n');
}

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: sluice <command> [options]',
    '',
    'Sluice stores logs and metrics, answers LogQL and PromQL queries as Server-Sent Events,',
    'keeps dashboards and serves them to tools over the Model Context Protocol.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary.split('. ')[0].replace(/\.$/, '')}`),
    '',
    'Options:',
    '  -h, --help     Show this help.',
    '  -V, --version  Print the version.',
    '',
    "Run 'sluice <command> --help' for a command's options.",
  ].join('\n');
}

/** findCommand matches the longest command name ("keys create") at the start of argv. */
function findCommand(argv: string[]): { cmd: Command; rest: string[] } | undefined {
  for (const cmd of COMMANDS) {
    const words = cmd.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { cmd, rest: argv.slice(words.length) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(mainHelp() + '\n');
    return argv.length === 0 ? 1 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    process.stdout.write(version() + '\n');
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `));
    if (group.length > 0 && (argv[1] === '--help' || argv[1] === '-h' || argv[1] === 'help')) {
      process.stdout.write(groupHelp(argv[0], group) + '\n');
      return 0;
    }
    if (group.length > 0) {
      process.stderr.write(`sluice ${argv[0]}: expected one of: ${group.map((c) => c.name.split(' ')[1]).join(', ')}\n`);
    } else {
      process.stderr.write(`sluice: unknown command "${argv[0]}"\n\n${mainHelp()}\n`);
    }
    return 2;
  }
  const { cmd, rest } = found;
  try {
    const { values, positionals } = parseCommandArgs(cmd, rest);
    if (values.help) {
      process.stdout.write(commandHelp(cmd) + '\n');
      return 0;
    }
    return await cmd.run(values, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`sluice ${cmd.name}: ${err.message}\nRun 'sluice ${cmd.name} --help' for usage.\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`sluice ${cmd.name}: ${err.message}\n`);
      return 78;
    }
    if (err instanceof StartupError) {
      process.stderr.write(`sluice ${cmd.name}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof UwsUnavailableError) {
      process.stderr.write(`sluice ${cmd.name}: ${err.message}\n`);
      return 69; // EX_UNAVAILABLE: this platform lacks what the service needs
    }
    process.stderr.write(`sluice ${cmd.name}: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`sluice: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
