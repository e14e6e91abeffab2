import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Tests run TypeScript, but the code they start in other threads and processes (the query
 * workers, the CLI, child servers) runs from dist/. A run over stale output would test old
 * worker code while the test file reads new source, so before any test starts this compiles
 * the project whenever a source file under src/, engine/ or bench/ is newer than its output (or has
 * none). An up-to-date dist costs a few hundred stat calls, so `npx vitest run FILE` needs no
 * build step of its own.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPILED_DIRS = ['src', 'engine', 'bench'];

/** outputOf names the file tsc writes for a source file (`.cts` compiles to `.cjs`). */
function outputOf(source: string): string {
  const relative = path.relative(ROOT, source);
  return path.join(ROOT, 'dist', relative.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function modifiedMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** staleSources lists the sources whose compiled output is missing or older than they are. */
export function staleSources(): string[] {
  return COMPILED_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).filter((source) => modifiedMs(outputOf(source)) < modifiedMs(source));
}

export default function setup(): void {
  const stale = staleSources();
  if (stale.length === 0) return;
  const shown = stale.slice(0, 3).map((f) => path.relative(ROOT, f));
  const more = stale.length > shown.length ? ` and ${stale.length - shown.length} more` : '';
  process.stdout.write(`dist is older than ${shown.join(', ')}${more}: building\n`);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
