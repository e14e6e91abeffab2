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
 * build step of its own. The web app (src/web) is built by Vite into dist/web whenever one of
 * its files is newer than the built index.html.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPILED_DIRS = ['src', 'engine', 'bench'];
/** WEB_SOURCE is the web app's source; WEB_BUILT is the file every build of it rewrites. */
const WEB_SOURCE = path.join(ROOT, 'src', 'web');
const WEB_BUILT = path.join(ROOT, 'dist', 'web', 'index.html');
/** WASM_SOURCE is AssemblyScript, compiled by scripts/build-wasm.sh into engine/common, not by tsc. */
const WASM_SOURCE = path.join(ROOT, 'engine', 'wasm');

/** outputOf names the file tsc writes for a source file (`.cts` compiles to `.cjs`). */
function outputOf(source: string): string {
  const relative = path.relative(ROOT, source);
  return path.join(ROOT, 'dist', relative.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // The web app is compiled by Vite (see webAppStale) and engine/wasm by AssemblyScript, not tsc.
    if (entry.isDirectory()) return full === WEB_SOURCE || full === WASM_SOURCE ? [] : sourceFiles(full);
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


function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? allFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

/** webAppStale is true when the built app is missing or older than any file of its source. */
export function webAppStale(): boolean {
  const built = modifiedMs(WEB_BUILT);
  return allFiles(WEB_SOURCE).some((file) => modifiedMs(file) > built);
}

function buildWebApp(): void {
  process.stdout.write('dist/web is older than src/web: building the web app\n');
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', path.join(WEB_SOURCE, 'vite.config.ts')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export default function setup(): void {
  if (webAppStale()) buildWebApp();
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
