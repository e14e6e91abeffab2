import type { RecognizedString } from 'uWebSockets.js';
import type { ResponseSink } from '../http/responder.js';
import type { SseStream } from '../http/sse.js';

/** text turns what a response writes into a string (a batch's queries write uncompressed text). */
function text(chunk: RecognizedString | undefined): string {
  if (chunk === undefined) return '';
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk).toString('utf8');
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  return String(chunk);
}

/**
 * tagEvents writes `"id":<id>,` into every event of framed text. Each event starts its text or
 * follows a blank line, and JSON never holds a raw line break, so `\n\ndata: {` is always the
 * start of an event, never part of a value; a write always holds whole events.
 */
export function tagEvents(framed: string, idJson: string): { text: string; count: number } {
  const head = `data: {"id":${idJson},`;
  const parts = framed.split('\n\ndata: {');
  if (!parts[0]!.startsWith('data: {')) return { text: '', count: 0 };
  parts[0] = parts[0]!.slice('data: {'.length);
  return { text: head + parts.join(`\n\n${head}`), count: parts.length };
}

/**
 * BatchMember is the response of one query inside a batch: what the query writes (the status
 * line, its events, its terminal event, or a JSON error body when it fails before streaming)
 * goes into the batch's one event stream, every event tagged with the query's id. A query that
 * fails before its first event becomes one `error` event carrying the error body it would have
 * answered alone. Writes report the shared stream's backpressure, so each query waits for the
 * batch's client like it waits for its own; the stream's drains wake them.
 */
export class BatchMember implements ResponseSink {
  private status = 200;
  private ended = false;
  private readonly idJson: string;

  constructor(
    id: string,
    private readonly shared: SseStream,
    /** onClose marks the query's response aborted (the batch's client left, or this query stalled). */
    private readonly onClose: () => void,
  ) {
    this.idJson = JSON.stringify(id);
  }

  cork(cb: () => void): this {
    cb();
    return this;
  }

  writeStatus(status: RecognizedString): this {
    this.status = Number.parseInt(text(status), 10) || 500;
    return this;
  }

  writeHeader(): this {
    return this;
  }

  write(chunk: RecognizedString): boolean {
    if (this.ended) return false;
    const tagged = tagEvents(text(chunk), this.idJson);
    if (tagged.count === 0) return this.shared.writable;
    return this.shared.writeFramed(tagged.text, tagged.count);
  }

  end(body?: RecognizedString): this {
    if (this.ended) return this;
    const payload = text(body);
    if (this.status === 200) {
      if (payload !== '') this.write(payload);
    } else {
      // A JSON error body (validation, 4xx, 429...) becomes the query's one terminal event.
      const data = payload.trim().startsWith('{') ? payload : JSON.stringify({ status: this.status, code: 'INTERNAL', message: payload });
      this.shared.writeFramed(`data: {"id":${this.idJson},"type":"error","data":${data}}\n\n`, 1);
    }
    this.ended = true;
    return this;
  }

  endWithoutBody(): this {
    return this.end();
  }

  onWritable(handler: (offset: number) => boolean): this {
    void this.shared.drained().then(() => {
      if (!this.ended) handler(0);
    });
    return this;
  }

  close(): this {
    if (this.ended) return this;
    this.ended = true;
    this.onClose();
    return this;
  }
}
