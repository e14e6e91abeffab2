import type { HttpResponse } from 'uWebSockets.js';
import { ApiError } from '../errors.js';

/**
 * DRAIN_BYTES is how far past its limit a refused body is still read (and thrown away) before
 * the 413 goes out. A client writes its whole body before it reads the answer; closing the
 * connection under it makes it fail with a broken pipe instead of the JSON error. Past this,
 * the connection is closed at once: bandwidth spent on discarding stays bounded.
 */
export const DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * BodyTooLarge is the 413 for a body over its limit; `unread` says whether the rest of the body
 * is still on the wire, so the connection must be closed after the answer to discard it.
 */
export class BodyTooLarge extends ApiError {
  constructor(
    limit: number,
    readonly unread: boolean,
  ) {
    super('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`);
  }
}

/**
 * readBody collects a request body from uWS' chunk callbacks. uWS reuses the chunk memory
 * after the callback returns, so each chunk is copied. The size limit is enforced from
 * Content-Length before any byte is buffered and again while chunks arrive, since a client
 * may lie or stream without a length. A body over the limit is no longer kept but read to its
 * end when it stays within DRAIN_BYTES past the limit, so the client gets the 413 on a
 * connection it can still use. Must be called synchronously inside the request handler.
 */
export function readBody(res: HttpResponse, limit: number, declaredLength: number | undefined): Promise<Buffer> {
  const drainUpTo = limit + DRAIN_BYTES;
  if (declaredLength !== undefined && declaredLength > drainUpTo) {
    return Promise.reject(new BodyTooLarge(limit, true));
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > drainUpTo) {
        done = true;
        // Answer (and close the connection) only after uWS has left this callback: it is
        // still walking the current chunk, and closing the socket under it is unsafe.
        setImmediate(() => reject(new BodyTooLarge(limit, true)));
        return;
      }
      if (size > limit) {
        chunks = [];
        if (isLast) {
          done = true;
          reject(new BodyTooLarge(limit, false));
        }
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
  });
}

/** parseJsonBody parses a JSON request body, answering INVALID_JSON with the parser's reason. */
export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') throw new ApiError('INVALID_JSON', 'request body is empty; expected a JSON object');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError('INVALID_JSON', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * isJsonContentType accepts what JSON clients send: no Content-Type at all, application/json
 * with any parameters, or a `+json` media type.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.trim() === '') return true;
  const media = contentType.split(';')[0].trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}
