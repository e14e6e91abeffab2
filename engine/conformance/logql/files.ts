/**
 * Finding and running script files: a path may be a `.logqltest` file or a directory of them.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runScript, type EvalOutcome } from './runner.js';

/** listScripts expands files and directories into `.logqltest` paths, sorted by name. */
export function listScripts(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).filter((f) => f.endsWith('.logqltest')).sort()) out.push(join(p, name));
    } else {
      out.push(p);
    }
  }
  return out;
}

/** runScriptFiles runs every script under `paths`; outcomes name files without the extension. */
export function runScriptFiles(paths: readonly string[]): EvalOutcome[] {
  const outcomes: EvalOutcome[] = [];
  for (const path of listScripts(paths)) {
    outcomes.push(...runScript(basename(path).replace(/\.logqltest$/, ''), readFileSync(path, 'utf8')));
  }
  return outcomes;
}
