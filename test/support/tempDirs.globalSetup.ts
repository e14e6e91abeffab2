import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Every test run gets a temporary directory of its own, removed when the run ends. Most tests
 * remove what they create, but a test that fails halfway, a killed child server, or a renderer
 * whose clean-up runs on process exit (test workers are ended by a signal, which skips exit
 * handlers) would leave theirs behind. TMPDIR is pointed at the run's directory before any
 * worker starts, so test workers and the servers they spawn create everything inside it, and
 * two runs at once never remove each other's files.
 */
export default function setup(): () => void {
  const runDir = mkdtempSync(path.join(tmpdir(), 'sluice-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(runDir, { recursive: true, force: true });
  };
}
