import type { RecognizedString } from 'uWebSockets.js';
import { ApiError, type ErrorBody, type ErrorCode } from '../errors.js';
import { compressBody, compressBodyOffLoop, MIN_COMPRESSED_BYTES, MIN_OFF_LOOP_BYTES, type ContentEncoding } from './compression.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  499: 'Client Closed Request',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

/** statusLine renders the `200 OK` form uWebSockets.js writes on the wire. */
export function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
}

/**
 * ResponseSink is the part of a uWebSockets.js response that responses and event streams write
 * through. A uWS HttpResponse is one; a query inside a batch has another that writes into the
 * batch's shared stream (src/query/batchMember.ts), so every query path serves both unchanged.
 */
export interface ResponseSink {
  cork(cb: () => void): unknown;
  writeStatus(status: RecognizedString): unknown;
  writeHeader(key: RecognizedString, value: RecognizedString): unknown;
  write(chunk: RecognizedString): boolean;
  end(body?: RecognizedString, closeConnection?: boolean): unknown;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): unknown;
  onWritable(handler: (offset: number) => boolean): unknown;
  close(): unknown;
}

/**
 * Responder wraps one uWebSockets.js response. uWS forbids touching a response after the
 * client went away and wants writes batched inside `cork`; Responder enforces both, adds the
 * query id to every response, and reports the final status once so the access log and metrics
 * see each request exactly once.
 */
export class Responder {
  aborted = false;
  /** finished is true once the response is complete (or the client is gone). */
  finished = false;
  status = 0;
  private readonly abortHandlers: Array<() => void> = [];
  private reported = false;
  /** started is true once a streaming response has written its status and headers. */
  started = false;
  /** errorCode is the spec error code the request failed with (also mid-stream), for the access log. */
  errorCode: ErrorCode | undefined;
  /** encoding is the compression the client accepts and the service may use, if any. */
  encoding: ContentEncoding | undefined;
  /** headOnly answers a HEAD request: send writes the status and headers, and the length of a body it does not send. */
  headOnly = false;

  constructor(
    readonly raw: ResponseSink,
    readonly queryId: string,
    private readonly onFinish: (status: number) => void,
    /** closeAfter asks keep-alive clients to disconnect, used while the server drains. */
    private readonly closeAfter: boolean = false,
  ) {}

  /** markAborted is called from uWS' onAborted: the socket is gone and must not be touched. */
  markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    const wasFinished = this.finished;
    this.finished = true;
    for (const handler of this.abortHandlers.splice(0)) handler();
    if (!wasFinished) this.reportFinished(499);
  }

  /** onAbort registers cleanup for a client disconnect (cancelling work, releasing buffers). */
  onAbort(handler: () => void): void {
    if (this.aborted) handler();
    else this.abortHandlers.push(handler);
  }

  /**
   * reportFinished records the final status of a response that was written directly (a
   * stream), so access logs and metrics still see it exactly once.
   */
  reportFinished(status: number): void {
    this.finished = true;
    this.status = status;
    if (!this.reported) {
      this.reported = true;
      this.onFinish(status);
    }
  }

  /**
   * send writes a complete response. Extra headers override nothing but add to the defaults. A
   * large body to compress is compressed off the event loop and written when ready (unless the
   * client left meanwhile); the response counts as finished from the call.
   */
  send(status: number, body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}, closeConnection = false): void {
    if (this.finished || this.started) return;
    this.finished = true;
    this.status = status;
    const length = byteLength(body);
    const encoding = this.encoding !== undefined && contentType.startsWith('application/json') && length >= MIN_COMPRESSED_BYTES ? this.encoding : undefined;
    if (encoding === undefined) return this.writeWhole(status, body, contentType, headers, closeConnection, undefined);
    if (length < MIN_OFF_LOOP_BYTES) return this.writeWhole(status, compressBody(body, encoding), contentType, headers, closeConnection, encoding);
    compressBodyOffLoop(body, encoding).then(
      (payload) => {
        if (this.aborted) this.reportFinished(499);
        else this.writeWhole(status, payload, contentType, headers, closeConnection, encoding);
      },
      () => {
        // A compressor that fails leaves nothing to send; the connection cannot carry the answer.
        if (!this.aborted) this.raw.close();
        this.reportFinished(500);
      },
    );
  }

  /** writeWhole writes the status, headers and the (already encoded) body in one corked write. */
  private writeWhole(status: number, payload: string | Uint8Array, contentType: string, headers: Record<string, string>, closeConnection: boolean, encoding: ContentEncoding | undefined): void {
    this.raw.cork(() => {
      this.raw.writeStatus(statusLine(status));
      this.raw.writeHeader('content-type', contentType);
      this.raw.writeHeader('x-svc-query-id', this.queryId);
      if (encoding !== undefined) {
        this.raw.writeHeader('content-encoding', encoding);
        this.raw.writeHeader('vary', 'accept-encoding');
      }
      for (const [name, value] of Object.entries(headers)) this.raw.writeHeader(name, value);
      if (this.headOnly) this.raw.endWithoutBody(byteLength(payload), closeConnection || this.closeAfter);
      else this.raw.end(payload, closeConnection || this.closeAfter);
    });
    this.reportFinished(status);
  }

  json(status: number, value: unknown, headers?: Record<string, string>): void {
    this.send(status, JSON.stringify(value), 'application/json', headers);
  }

  text(status: number, text: string, headers?: Record<string, string>): void {
    this.send(status, text, 'text/plain; charset=utf-8', headers);
  }

  /** error renders the spec's JSON error body; `closeConnection` drops a half-read request body. */
  error(err: ApiError, closeConnection = false): void {
    this.errorCode ??= err.code;
    const body: ErrorBody = err.toBody();
    this.send(err.status, JSON.stringify(body), 'application/json', err.headers, closeConnection);
  }
}
