/**
 * isProcessAlive tells whether a process with this pid exists on this host, which is what
 * decides whether a lock file it left is stale. Signal 0 checks without delivering anything;
 * EPERM means the process exists but belongs to another user.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
