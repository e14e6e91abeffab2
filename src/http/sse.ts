import { releaseChunks } from './batchBuffers.js';
import { compressBody, MIN_COMPRESSED_BYTES, MIN_OFF_LOOP_BYTES, StreamCompressor, utf8Bytes, type ContentEncoding } from './compression.js';
import type { Responder } from './responder.js';
import { statusLine } from './responder.js';
import { yieldIfSliceSpent } from './timeSlice.js';

/** SseEvent is one event of the query stream: `data: {"type":...,"data":...}` plus a blank line. */
export interface SseEvent {
  type: string;
  data: unknown;
  /**
   * json, when set, is `data` already serialised; used where JSON.stringify cannot express a
   * value, such as nanosecond timestamps written as exact integers beyond 2^53.
   */
  json?: string;
}

/** frame renders one event in the spec's framing: a data line and a blank line. */
export function frame(e: SseEvent): string {
  return `data: {"type":${JSON.stringify(e.type)},"data":${e.json ?? JSON.stringify(e.data)}}\n\n`;
}

/**
 * PIECE_BYTES is about the most one write hands to uWS. uWS keeps whatever the socket does not
 * take at once, so this, not the size of the batch a producer emits, is what a slow client can
 * leave buffered in user space. It is above uWS' 16 KiB cork buffer, so such a write goes to the
 * socket at once and its result says truly whether the socket took all of it.
 */
export const PIECE_BYTES = 64 * 1024;

/**
 * COMPRESSED_PIECE_BYTES is the text a compressed stream hands its compressor at a time. Each
 * hand-over is a flush and a round trip to the thread pool, which at 64 KiB cost more than the
 * compression itself (10 MB of result events: 26 ms of CPU in 64 KiB flushes, 9 ms in 1 MiB
 * ones, and an eighth of the event-loop time); what reaches uWS per piece is the compressed
 * text, a fraction of it, so the bound on what a slow client leaves buffered stays about the same.
 */
export const COMPRESSED_PIECE_BYTES = 1024 * 1024;

/**
 * COMPRESSED_BATCH_BYTES is the batch a producer makes for a compressed stream (batchBytes): each
 * batch is one write to the compressor, a job on libuv's pool that wakes an idle pool thread, so
 * a 1 MiB piece handed over as 64 KiB batches was 16 such jobs. The pieces, their flushes and
 * the bytes the client gets stay the same. The 1,000-series hour as default events, builds
 * alternated: the answering thread 35-39 ms a query against 41-44, the client's CPU unchanged.
 */
export const COMPRESSED_BATCH_BYTES = COMPRESSED_PIECE_BYTES / 4;

/**
 * HOLD_BYTES and HOLD_MS bound what a compressed stream keeps back at its start (SseStream
 * `held`): answers that end within it, most of a dashboard's, are compressed whole on the event
 * loop; a stream that goes on is delayed by at most HOLD_MS. The bound is the one below which a
 * whole JSON body is compressed on the loop (MIN_OFF_LOOP_BYTES, about half a millisecond at
 * the fastest gzip level): with 16 KiB, an instant query over 1,000 series (200 KB of events)
 * went to the thread pool twice, for its events and for its end, and took 4.4 ms to answer
 * where uncompressed it took 2.6.
 */
const HOLD_BYTES = MIN_OFF_LOOP_BYTES;
const HOLD_MS = 5;

/**
 * FramedEvents is text already in the spec's framing holding `count` events, as producers that
 * render events straight to text hand them over (no event object, no JSON.stringify per event):
 * a string, or its UTF-8 bytes where the producer wrote bytes (FrameBytesBatcher).
 */
export interface FramedEvents {
  framed: Chunk;
  count: number;
}

/** Chunk is text to write: a string, or UTF-8 bytes. */
export type Chunk = string | Uint8Array;

/** chunkText is a chunk as a string. */
export function chunkText(chunk: Chunk): string {
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
}

/**
 * joinChunks makes one write of several chunks: a string when they all are, else one buffer
 * (strings among bytes are encoded, bytes copied once).
 */
export function joinChunks(chunks: readonly Chunk[]): Chunk {
  if (chunks.length === 1) return chunks[0]!;
  if (chunks.every((c) => typeof c === 'string')) return chunks.join('');
  return Buffer.concat(chunks.map((c) => (typeof c === 'string' ? utf8Bytes(c) : c)));
}

/** StreamItem is what a stream writes: an event to frame, or events already framed. */
export type StreamItem = SseEvent | FramedEvents;

/**
 * FrameBatcher gathers framed events into batches of about PIECE_BYTES, so a producer yields
 * (and the stream looks at) one item per piece rather than one per event.
 */
export class FrameBatcher {
  private text = '';
  private count = 0;

  /** add appends one framed event; it returns the batch once the batch is a piece long. */
  add(framed: string): FramedEvents | undefined {
    this.text += framed;
    this.count++;
    return this.text.length >= PIECE_BYTES ? this.take() : undefined;
  }

  /** take hands over what was gathered, if anything. */
  take(): FramedEvents | undefined {
    if (this.count === 0) return undefined;
    const batch = { framed: this.text, count: this.count };
    this.text = '';
    this.count = 0;
    return batch;
  }
}

export interface SseOptions {
  /** heartbeatMs is the silence after which a heartbeat event is sent (the spec says 15 s). */
  heartbeatMs: number;
  /** onClose runs once when the stream ends for any reason (done, error or disconnect). */
  onClose?: () => void;
  /**
   * stallTimeoutMs is how long the client may take none of what is waiting for it; then the
   * connection is closed and `onStall` runs (before the close's own clean-up).
   */
  stallTimeoutMs?: number;
  onStall?: () => void;
  /**
   * onBehind runs each time the client falls behind (a write it could not take in full) and
   * onCaughtUp when it has taken everything again, so the producer can give up, while the
   * client stays behind, what it holds only while producing (a query's evaluation slot).
   */
  onBehind?: () => void;
  onCaughtUp?: () => void;
}

/**
 * SseStream writes Server-Sent Events to a uWS response while honouring backpressure: uWS
 * keeps whatever `write` could not send and reports it by returning false, so after such a
 * write the stream reports `writable = false` and producers wait on `drained()` before making
 * more events. `sendAll` cuts a batch into pieces of about PIECE_BYTES and waits after each
 * piece the client could not take, so a slow client leaves about one piece buffered in uWS and
 * slows only its own query.
 *
 * A timer sends a heartbeat after every `heartbeatMs` of silence, but not while the client is
 * behind: it has data to read, and a heartbeat would only add to what it has not taken.
 *
 * A client that takes nothing for `stallTimeoutMs` while data waits for it has stopped
 * reading: the stream closes its connection (recorded as 499) and reports the stall, which
 * cancels the query and frees what it held. uWS has a fixed send timeout of its own (about
 * 10 s without progress after a write it could not take), so a client that stops dead is
 * usually dropped by whichever comes first; the stall timer is the one that is configurable
 * and does not depend on uWS internals.
 */
export class SseStream {
  private writableNow = true;
  private drainWaiters: Array<() => void> = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private ended = false;
  private unconfirmedBytes = 0;
  private stallTimer: NodeJS.Timeout | undefined;
  /**
   * heldBytes is what the producer holds for this stream and has not written yet (a worker
   * result being rendered), reported through `hold`; it counts in `bufferedBytes`.
   */
  private heldBytes = 0;
  /** eventsSent counts result, heartbeat and terminal events written. */
  eventsSent = 0;
  /**
   * encoding is the compression the client accepts, set when the stream opens; compressor
   * encodes every write once the stream's start is pushed (`push`, made then: an answer that
   * ends within its held start never needs one), and its output is written in order through
   * `output`, the chain of writes not yet handed to uWS.
   */
  private encoding: ContentEncoding | undefined;
  private compressor: StreamCompressor | undefined;
  private output: Promise<void> = Promise.resolve();
  /**
   * held is what a compressed stream keeps back while it is small (HOLD_BYTES) and for at most
   * HOLD_MS. At the start, an answer that ends meanwhile is compressed whole on this thread
   * (compressBody), with no round trip to the thread pool. Once the compressor exists, a small
   * write is held the same way and goes with the next write or with the terminal event: each
   * push is a round trip to the pool and a flush, and a query's last small piece (the block
   * of point events held until the answer is complete) cost one more of each before the end.
   */
  private held: Chunk[] = [];
  private heldLength = 0;
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: Responder,
    private readonly options: SseOptions,
  ) {
    res.onAbort(() => this.close());
  }

  /**
   * open starts the answer: 200 with the spec's headers. A compressed stream writes them with its
   * first bytes instead (at most HOLD_MS later), since a stream that ends within its held start
   * and is smaller than MIN_COMPRESSED_BYTES is sent as is, without a content-encoding.
   */
  open(): void {
    if (this.res.finished || this.res.started) return;
    // Made here, not with the stream: a query that fails before its first event answers plain JSON.
    this.encoding = this.res.encoding;
    if (this.encoding === undefined) this.writeHeaders(undefined);
    this.res.status = 200;
    this.res.started = true;
    this.armHeartbeat();
  }

  /** writeHeaders writes the status line and headers, naming the encoding of the bytes that follow. */
  private writeHeaders(encoding: string | undefined): void {
    const raw = this.res.raw;
    raw.cork(() => {
      raw.writeStatus(statusLine(200));
      raw.writeHeader('content-type', 'text/event-stream');
      raw.writeHeader('cache-control', 'no-cache');
      raw.writeHeader('connection', 'keep-alive');
      raw.writeHeader('x-svc-query-id', this.res.queryId);
      raw.writeHeader('x-accel-buffering', 'no');
      if (this.encoding !== undefined) raw.writeHeader('vary', 'accept-encoding');
      if (encoding !== undefined) raw.writeHeader('content-encoding', encoding);
    });
  }

  /** batchBytes is about how much a producer should hand over at a time: a piece as written, or a quarter of a compressed piece. */
  get batchBytes(): number {
    return this.res.encoding === undefined ? PIECE_BYTES : COMPRESSED_BATCH_BYTES;
  }

  get closed(): boolean {
    return this.ended || this.res.aborted;
  }

  get writable(): boolean {
    return this.writableNow && !this.closed;
  }

  /**
   * bufferedBytes bounds from above what uWS holds for this open stream, written but not yet
   * taken by the socket: the bytes of every write since the last one the socket took in full
   * (uWS.js has no buffered amount for HTTP responses; a write below its cork buffer may hide
   * up to 16 KiB until the next write).
   */
  get bufferedBytes(): number {
    return this.closed ? 0 : this.unconfirmedBytes + this.heldBytes + this.heldLength;
  }

  /** hold records the bytes of results the producer holds for this stream until it has written them. */
  hold(bytes: number): void {
    this.heldBytes = Math.max(0, this.heldBytes + bytes);
  }

  /** send frames and writes events in one corked write; returns false when the client is behind. */
  send(events: SseEvent | SseEvent[]): boolean {
    if (this.closed) return false;
    const list = Array.isArray(events) ? events : [events];
    if (list.length === 0) return this.writableNow;
    let text = '';
    for (const e of list) text += frame(e);
    return this.write([text], list.length);
  }

  /**
   * sendAll writes events in pieces of about PIECE_BYTES (COMPRESSED_PIECE_BYTES of text when
   * compressed; whole events each), waiting before
   * each piece until the client has taken what it was given, and again at the end, so the
   * producer goes on only once the client keeps up. Between pieces it lets other requests run
   * once this event-loop turn has had its time slice. It returns early, dropping the rest, when
   * the stream closes or `signal` aborts (the query is over).
   */
  async sendAll(events: Iterable<StreamItem>, signal?: AbortSignal): Promise<void> {
    // Events are rendered as the pieces are cut, so a producer handing over a lazy sequence
    // (rows rendered on demand) has at most one piece of text in memory at a time.
    const pieceBytes = this.encoding === undefined ? PIECE_BYTES : COMPRESSED_PIECE_BYTES;
    // A string's length stands for its bytes: result text is almost all ASCII.
    let piece: Chunk[] = [];
    let length = 0;
    let count = 0;
    for (const item of events) {
      const chunk = 'framed' in item ? item.framed : frame(item);
      piece.push(chunk);
      length += chunk.length;
      count += 'framed' in item ? item.count : 1;
      if (length < pieceBytes) continue;
      await this.drained(signal);
      // A client that keeps up never makes drained() wait; the turn is given up here instead.
      await yieldIfSliceSpent();
      if (this.closed || signal?.aborted) return;
      this.write(piece, count);
      piece = [];
      length = 0;
      count = 0;
    }
    if (count > 0) {
      await this.drained(signal);
      if (this.closed || signal?.aborted) return;
      this.write(piece, count);
    }
    await this.drained(signal);
  }

  /**
   * writeFramed writes text already in the spec's framing at once (no pieces, no waiting) and
   * says whether the client keeps up; a batch's queries write through it and wait on `drained`
   * themselves when it says no.
   */
  writeFramed(text: string, events: number): boolean {
    if (this.closed) return false;
    return this.write([text], events);
  }

  /**
   * write writes one piece, given as the chunks it was gathered from: a compressor takes them one
   * by one (joining them first would copy every byte of the stream once more), uWS as one write.
   */
  private write(chunks: readonly Chunk[], events: number): boolean {
    this.eventsSent += events;
    if (this.encoding !== undefined) {
      let length = 0;
      for (const c of chunks) length += c.length;
      if (this.heldLength + length <= HOLD_BYTES) {
        this.held.push(...chunks);
        this.heldLength += length;
        this.holdTimer ??= setTimeout(() => this.pushHeld(), HOLD_MS);
      } else {
        this.push(this.encoding, [...this.takeHeld(), ...chunks]);
      }
      this.armHeartbeat();
      return this.writableNow;
    }
    const ok = this.writeRaw(joinChunks(chunks));
    releaseChunks(chunks);
    this.armHeartbeat();
    return ok;
  }

  /** push hands text to the compressor; a batch reaches uWS once the compressor has flushed it, and `drained` waits for that. */
  private push(encoding: ContentEncoding, text: readonly Chunk[]): void {
    if (this.compressor === undefined && !this.res.aborted) this.writeHeaders(encoding);
    const compressor = (this.compressor ??= new StreamCompressor(encoding));
    this.output = this.output.then(() => compressor.push(text)).then(
      (bytes) => {
        releaseChunks(text);
        this.writeRaw(bytes);
      },
      (err: unknown) => this.compressionFailed(err),
    );
  }

  /** pushHeld sends the held start of the stream once it has been held HOLD_MS. */
  private pushHeld(): void {
    this.holdTimer = undefined;
    const held = this.takeHeld();
    if (held.length > 0 && !this.closed && this.encoding !== undefined) this.push(this.encoding, held);
  }

  private takeHeld(): Chunk[] {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const held = this.held;
    this.held = [];
    this.heldLength = 0;
    return held;
  }

  private writeRaw(chunk: Chunk): boolean {
    if (this.res.aborted) return false;
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    let ok = true;
    this.res.raw.cork(() => {
      ok = this.res.raw.write(chunk);
    });
    // A write taken in full also flushed anything uWS held before it.
    this.unconfirmedBytes = ok ? 0 : this.unconfirmedBytes + bytes;
    if (!ok) this.waitWritable();
    return ok;
  }

  /** compressionFailed drops the connection: a stream whose encoding broke cannot be continued. */
  private compressionFailed(_err: unknown): void {
    if (!this.res.aborted) this.res.raw.close();
  }

  private waitWritable(): void {
    if (!this.writableNow) return;
    this.writableNow = false;
    this.options.onBehind?.();
    this.armStallTimer();
    this.res.raw.onWritable(() => {
      if (this.closed) return true;
      this.armStallTimer();
      // uWS does not flush its own buffer while a writable handler is set; an empty cork does,
      // so what it holds reaches the client even if no producer writes again soon.
      this.res.raw.cork(() => {});
      this.writableNow = true;
      this.options.onCaughtUp?.();
      clearTimeout(this.stallTimer);
      this.armHeartbeat();
      for (const w of this.drainWaiters.splice(0)) w();
      return true;
    });
  }

  /** armStallTimer (re)starts the wait for a client that has data waiting; any progress restarts it. */
  private armStallTimer(): void {
    const timeoutMs = this.options.stallTimeoutMs;
    if (timeoutMs === undefined) return;
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => this.stalled(), timeoutMs);
  }

  private stalled(): void {
    if (this.res.aborted) return;
    this.options.onStall?.();
    // Closing the socket makes uWS report the abort: the response is recorded as 499 and the
    // clean-up runs as for a client that left.
    this.res.raw.close();
  }

  /**
   * drained resolves when the client has caught up (compressed: once what was written has also
   * been compressed and handed to uWS), the stream closed or `signal` aborted.
   */
  drained(signal?: AbortSignal): Promise<void> {
    if (this.encoding !== undefined && !this.closed) return this.output.then(() => this.caughtUp(signal));
    return this.caughtUp(signal);
  }

  private caughtUp(signal?: AbortSignal): Promise<void> {
    if (this.writableNow || this.closed || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.drainWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** end sends the terminal event and finishes the response. */
  end(terminal: SseEvent): void {
    if (this.closed) return;
    const chunk = frame(terminal);
    this.eventsSent++;
    this.res.finished = true;
    const encoding = this.encoding;
    const compressor = this.compressor;
    if (encoding === undefined) {
      this.res.raw.cork(() => this.res.raw.end(chunk));
    } else if (compressor === undefined) {
      const held = this.takeHeld();
      const body = joinChunks([...held, chunk]);
      if (!this.res.aborted) {
        const whole = body.length < MIN_COMPRESSED_BYTES ? undefined : compressBody(body, encoding);
        // One cork: headers and body leave in one packet (uWS runs a nested cork's handler at once).
        this.res.raw.cork(() => {
          this.writeHeaders(whole === undefined ? undefined : encoding);
          this.res.raw.end(whole ?? body);
        });
        releaseChunks(held);
      }
    } else {
      // Whatever is held goes with the terminal event: one trip to the thread pool, not two.
      const last = [...this.takeHeld(), chunk];
      this.output = this.output.then(() => compressor.finish(last)).then(
        (bytes) => {
          releaseChunks(last);
          if (!this.res.aborted) this.res.raw.cork(() => this.res.raw.end(bytes));
        },
        (err: unknown) => this.compressionFailed(err),
      );
    }
    this.res.reportFinished(200);
    this.close();
  }

  private armHeartbeat(): void {
    clearTimeout(this.heartbeat);
    if (this.closed || !this.writableNow) return;
    this.heartbeat = setTimeout(() => this.send({ type: 'heartbeat', data: { status: 'waiting' } }), this.options.heartbeatMs);
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.heldBytes = 0;
    // A stream that ends normally still finishes its compressed output; one whose client left does not.
    if (this.res.aborted) this.compressor?.close();
    clearTimeout(this.heartbeat);
    clearTimeout(this.stallTimer);
    clearTimeout(this.holdTimer);
    for (const w of this.drainWaiters.splice(0)) w();
    this.options.onClose?.();
  }
}
