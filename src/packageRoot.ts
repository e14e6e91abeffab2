import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * packageRoot finds the directory holding package.json, from wherever this module runs:
 * compiled under dist/ or as source under a test runner. Worker scripts and schemas are found
 * from there.
 */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root (package.json)');
    dir = parent;
  }
  return dir;
}
