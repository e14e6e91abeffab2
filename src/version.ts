import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './packageRoot.js';

let cached: string | undefined;

/** packageVersion is the version in the package.json the service was installed with, read once. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return cached;
}
