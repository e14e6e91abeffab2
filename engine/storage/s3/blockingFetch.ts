import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { BlobNotFoundError } from '../blobStore.js';
import type { FetchReply, FetchRequest, FetchWorkerData } from './fetchWorker.js';

/**
 * workerFile finds the compiled fetch worker: beside this module when it runs compiled, under
 * dist/ at the same relative path when it runs as source (a test runner).
 */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  if (here.endsWith('.js')) return path.join(dir, 'fetchWorker.js');
  let root = dir;
  while (!existsSync(path.join(root, 'package.json'))) {
    const parent = path.dirname(root);
    if (parent === root) throw new Error('cannot find the package root for the fetch worker');
    root = parent;
  }
  return path.join(root, 'dist', path.relative(root, dir), 'fetchWorker.js');
}

/**
 * BlockingFetch downloads a blob into the cache while the calling thread waits: the storage's
 * synchronous read contract (BlobStore.read) met on a cache miss. Queries prefetch segments
 * asynchronously first, so this path is taken only by a read nothing warmed, and only for as
 * long as one download takes (bounded by `timeoutMs`). The worker thread starts on first use.
 */
export class BlockingFetch {
  private worker: Worker | undefined;
  private replies: MessagePort | undefined;
  private nextId = 1;

  constructor(
    private readonly setup: Omit<FetchWorkerData, 'replies'>,
    private readonly timeoutMs: number,
  ) {}

  /** fetch downloads `name` into the cache directory and returns the cached file's size. */
  fetch(name: string): number {
    const { worker, replies } = this.start();
    const id = this.nextId++;
    const done = new Int32Array(new SharedArrayBuffer(4));
    worker.postMessage({ id, name, done } satisfies FetchRequest);
    if (Atomics.wait(done, 0, 0, this.timeoutMs) === 'timed-out') {
      throw new Error(`reading ${name} from the object store took longer than ${this.timeoutMs} ms`);
    }
    for (;;) {
      const received = receiveMessageOnPort(replies);
      if (!received) throw new Error(`no reply from the object store fetch thread for ${name}`);
      const reply = received.message as FetchReply;
      // Replies to requests that timed out earlier are stale: skip them.
      if (reply.id !== id) continue;
      if (reply.ok) return reply.size;
      if (reply.notFound) throw new BlobNotFoundError(name);
      throw new Error(`reading ${name} from the object store failed: ${reply.message}`);
    }
  }

  private start(): { worker: Worker; replies: MessagePort } {
    if (this.worker && this.replies) return { worker: this.worker, replies: this.replies };
    const channel = new MessageChannel();
    const workerData: FetchWorkerData = { ...this.setup, replies: channel.port2 };
    const worker = new Worker(workerFile(), { workerData, transferList: [channel.port2] });
    worker.unref();
    // A worker that dies is replaced on the next blocking read.
    worker.on('error', () => this.stop());
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    this.replies = channel.port1;
    return { worker, replies: channel.port1 };
  }

  stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.replies?.close();
    this.replies = undefined;
    void worker?.terminate();
  }
}
