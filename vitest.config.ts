import { defineConfig } from 'vitest/config';
import { systemTestFiles } from './test/support/testKinds.js';

/**
 * Two projects: `unit` (engine, parsers, stores: fast, no processes) and `system` (the real
 * server on loopback, child processes, peers). `npm test` runs both; `npm run test:unit` and
 * `npm run test:system` run one. Which project a file belongs to is read from its imports (see
 * test/support/testKinds.ts), so a new test lands in the right one without a list to keep.
 */
const system = systemTestFiles();

export default defineConfig({
  test: {
    exclude: ['dist/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/support/build.globalSetup.ts', 'test/support/tempDirs.globalSetup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['dist/**', 'node_modules/**', ...system] } },
      { extends: true, test: { name: 'system', include: system } },
    ],
  },
});
