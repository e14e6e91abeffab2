import { Writable } from 'node:stream';

/**
 * DiscardLog swallows a service's log lines: a benchmark that starts the service in its own
 * process prints only its figures, and writing the log would be work the measurement counts.
 */
export class DiscardLog extends Writable {
  override _write(_chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    done();
  }
}
