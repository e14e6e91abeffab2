import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** What a result file records about where it was measured, so ratios can be read in context. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  loadAverageAtStart: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  let osName = `${os.type()} ${os.release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (pretty) osName = `${pretty[1]} (${os.release()})`;
  } catch {
    // not Linux: the kernel name is enough
  }
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    os: osName,
    node: process.version,
    loadAverageAtStart: os.loadavg().map((x) => Number(x.toFixed(2))),
  };
}

/** sluiceVersion is the package version and, in a checkout, the commit measured. */
export function sluiceVersion(packageJsonPath: string): string {
  const version = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return commit.status === 0 ? `${version} (${commit.stdout.trim()})` : version;
}
