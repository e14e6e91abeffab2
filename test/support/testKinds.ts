import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A system test starts something outside its own thread: the service (test/support/server.ts),
 * a child process (test/support/child.ts, test/support/s3Server.ts, test/support/postgres.ts, test/support/cluster.ts,
 * node:child_process) or a
 * peer binary. Such a test needs dist/ built and takes seconds; the rest are unit tests that
 * take milliseconds. The kind is read from a file's imports, so it cannot drift from what the file does.
 */
const SYSTEM_IMPORTS = [/from '[./]*support\/(server|child|s3Server|postgres|natsCluster|cluster)\.js'/, /from 'node:child_process'/];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** systemTestFiles lists the system tests as paths relative to the project root. */
export function systemTestFiles(): string[] {
  return testFiles(path.join(ROOT, 'test'))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return SYSTEM_IMPORTS.some((pattern) => pattern.test(text));
    })
    .map((file) => path.relative(ROOT, file));
}
