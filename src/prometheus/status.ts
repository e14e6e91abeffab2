import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../packageRoot.js';

/**
 * The status documents Prometheus clients read to detect what they talk to. Grafana's data
 * source takes the back-end flavour from buildinfo: a non-empty `features` map means Mimir, so
 * there is none; `version` is the Prometheus API release whose behaviour these routes follow,
 * which is what Grafana's feature detection compares against.
 */

/** PROMETHEUS_API_VERSION is the Prometheus release these routes are compared against. */
const PROMETHEUS_API_VERSION = '2.42.0';

let sluiceVersion: string | undefined;

function packageVersion(): string {
  sluiceVersion ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return sluiceVersion;
}

const startedAt = new Date().toISOString();

export function buildInfo(): Record<string, string> {
  return {
    version: PROMETHEUS_API_VERSION,
    revision: `sluice-${packageVersion()}`,
    branch: 'sluice',
    buildUser: 'sluice',
    buildDate: '',
    goVersion: `node${process.versions.node}`,
  };
}

/** runtimeInfo fills the fields of Prometheus' runtimeinfo that have a meaning here. */
export function runtimeInfo(): Record<string, unknown> {
  return {
    startTime: startedAt,
    CWD: process.cwd(),
    reloadConfigSuccess: true,
    lastConfigTime: startedAt,
    corruptionCount: 0,
    goroutineCount: 0,
    GOMAXPROCS: 0,
    GOGC: '',
    GODEBUG: '',
    storageRetention: '',
  };
}
