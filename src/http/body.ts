import type { HttpResponse } from 'uWebSockets.js';
import { ApiError } from '../errors.js';

/**
 * readBody collects a request body from uWS' chunk callbacks. uWS reuses the chunk memory
 * after the callback returns, so each chunk is copied. The size limit is enforced from
 * Content-Length before any byte is buffered and again while chunks arrive, since a client
 * may lie or stream without a length. Must be called synchronously inside the request handler.
 */
export function readBody(res: HttpResponse, limit: number, declaredLength: number | undefined): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > limit) {
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        // Answer (and close the connection) only after uWS has left this callback: it is
        // still walking the current chunk, and closing the socket under it is unsafe.
        setImmediate(() => reject(tooLarge(limit)));
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
  });
}

function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`);
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
