import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** SHARED_DIR is the spec bundle beside the checkout (`../shared`), home of the conformance corpora. */
export const SHARED_DIR = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** sharedPath resolves a path inside the spec bundle. */
export function sharedPath(relative: string): string {
  return path.join(SHARED_DIR, relative);
}

/**
 * sharedAvailable tells whether a suite's part of the spec bundle is there. A checkout without
 * `../shared` still runs every other test: the suite is skipped and says why on stderr. CI always
 * lays the bundle beside its clone, so under CI=true a missing one fails the suite instead of
 * letting it pass by skipping.
 */
export function sharedAvailable(relative: string, suite: string): boolean {
  const dir = sharedPath(relative);
  if (existsSync(dir)) return true;
  const reason = `${suite} needs ../shared/${relative} beside the checkout (looked for ${dir})`;
  if (process.env.CI === 'true') throw new Error(`${reason}; with CI=true it is required`);
  console.warn(`skipped: ${reason}`);
  return false;
}

/**
 * describeWithShared declares a suite that reads `relative` from the spec bundle. Without it the
 * suite's body is never run (it would read the corpus while collecting) and one skipped entry
 * names what is missing.
 */
export function describeWithShared(relative: string, name: string, factory: () => void): void {
  if (sharedAvailable(relative, name)) describe(name, factory);
  else describe.skip(name, () => it.skip(`needs ../shared/${relative}`));
}
