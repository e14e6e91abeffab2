import { readFileSync } from 'node:fs';

/**
 * CPU time and resident memory of a process from /proc, so each system's cost is measured on
 * the system itself and not on the benchmark client sharing the machine. Sluice's query
 * workers are threads of its process, so they are included.
 */
const CLOCK_TICKS_PER_SECOND = 100;

/** cpuSeconds is user plus system time the process has used so far (all its threads). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** residentBytes is the process's current resident set size. */
export function residentBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}
