import { readFileSync } from 'node:fs';

/**
 * Busy and idle time of the whole machine from /proc/stat. On a machine with few cores the
 * replicas, the backends and the benchmark's own clients all compete for the same CPUs; the
 * share of the machine that was busy during a window says whether adding replicas could have
 * helped at all.
 */
export interface CpuTimes {
  busyTicks: number;
  totalTicks: number;
}

export function machineCpuTimes(): CpuTimes {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busyTicks: total - idle, totalTicks: total };
}

/** busyShare is the fraction (0 to 1) of all cores' time that was busy between two readings. */
export function busyShare(before: CpuTimes, after: CpuTimes): number {
  const total = after.totalTicks - before.totalTicks;
  return total <= 0 ? 0 : (after.busyTicks - before.busyTicks) / total;
}

/** harnessCpuSeconds is the CPU time this process (the benchmark's own clients) has used so far. */
export function harnessCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}
