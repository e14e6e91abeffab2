/**
 * Limiter bounds how many requests run at once: an object store answers many small requests
 * well, but a burst of hundreds (a cold query over many segments, a multipart upload) only
 * queues inside the HTTP agent and holds every body in memory meanwhile.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly maxConcurrent: number) {
    if (!(maxConcurrent >= 1)) throw new Error('maxConcurrent must be at least 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxConcurrent) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` stays exact.
      if (next) next();
      else this.running--;
    }
  }
}
