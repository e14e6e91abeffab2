/**
 * Finding and running conformance script files, for either language: a path may be a script
 * file or a directory of them (those ending in the language's extension, run in name order).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** listScriptFiles expands files and directories into script paths ending in `extension`, sorted by name. */
export function listScriptFiles(paths: readonly string[], extension: string): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).filter((f) => f.endsWith(extension)).sort()) out.push(join(p, name));
    } else {
      out.push(p);
    }
  }
  return out;
}

/** runScriptFilesWith runs every script under `paths` with `run`, naming each by its file name without the extension. */
export function runScriptFilesWith<T>(paths: readonly string[], extension: string, run: (name: string, text: string) => T[]): T[] {
  const outcomes: T[] = [];
  for (const path of listScriptFiles(paths, extension)) {
    const name = basename(path);
    outcomes.push(...run(name.endsWith(extension) ? name.slice(0, -extension.length) : name, readFileSync(path, 'utf8')));
  }
  return outcomes;
}
