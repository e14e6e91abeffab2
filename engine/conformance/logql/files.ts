/** Script files of the LogQL conformance suite: `.logqltest` files, or directories of them. */
import { listScriptFiles, runScriptFilesWith } from '../scriptFiles.js';
import { runScript, type EvalOutcome } from './runner.js';

const EXTENSION = '.logqltest';

/** listScripts expands files and directories into `.logqltest` paths, sorted by name. */
export function listScripts(paths: readonly string[]): string[] {
  return listScriptFiles(paths, EXTENSION);
}

/** runScriptFiles runs every script under `paths`; outcomes name files without the extension. */
export function runScriptFiles(paths: readonly string[]): EvalOutcome[] {
  return runScriptFilesWith(paths, EXTENSION, runScript);
}
