/**
 * armDeadline calls `expire` once `timeoutMs` have passed and returns the timer to clear when
 * the query ends first. Timers fire a millisecond later at the soonest, and a small query
 * evaluated inline is answered within that: a shorter deadline (a client's `timeout` of a few
 * microseconds) has passed before any evaluation could be done, so it expires at once.
 */
export function armDeadline(timeoutMs: number, expire: () => void): NodeJS.Timeout {
  const timer = setTimeout(expire, timeoutMs);
  if (timeoutMs < 1) {
    clearTimeout(timer);
    expire();
  }
  return timer;
}
