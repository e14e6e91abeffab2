import type { RequestContext } from './router.js';
import { statusLine } from './responder.js';

/**
 * Bridges between the uWS front and libraries that speak the web platform's Request and
 * Response (the MCP SDK's streamable HTTP transport). The request is rebuilt from what the
 * front already copied (uWS request objects die when the handler returns); the response is
 * streamed back chunk by chunk, waiting for the socket whenever uWS reports it full, and
 * cancelled when the client leaves.
 */

/** toWebRequest rebuilds the request as a web Request; `headers` may override the client's. */
export function toWebRequest(ctx: RequestContext, overrides: Record<string, string> = {}): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries({ ...ctx.headers, ...overrides })) headers.set(name, value);
  const query = ctx.query.toString();
  const url = `http://${ctx.headers.host ?? 'localhost'}${ctx.path}${query === '' ? '' : `?${query}`}`;
  const hasBody = ctx.body !== undefined && ctx.method !== 'GET' && ctx.method !== 'HEAD';
  return new Request(url, { method: ctx.method, headers, body: hasBody ? new Uint8Array(ctx.body!) : undefined });
}

/** HOP_BY_HOP are response headers uWS writes itself or that do not apply to its framing. */
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * sendWebResponse writes a web Response through the request's responder: status and headers
 * at once, then the body as it is produced. A body that is already whole (a JSON answer) goes
 * out in one write; a stream (SSE) is written piece by piece with backpressure.
 */
export async function sendWebResponse(ctx: RequestContext, response: Response): Promise<void> {
  const res = ctx.res;
  if (res.finished) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: Record<string, string> = {};
  let contentType = 'application/octet-stream';
  response.headers.forEach((value, name) => {
    if (name === 'content-type') contentType = value;
    else if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  const streaming = contentType.startsWith('text/event-stream');
  if (!streaming || response.body === null) {
    const body = new Uint8Array(await response.arrayBuffer());
    res.send(response.status, body, contentType, headers);
    return;
  }
  const raw = res.raw;
  raw.cork(() => {
    raw.writeStatus(statusLine(response.status));
    raw.writeHeader('content-type', contentType);
    raw.writeHeader('x-svc-query-id', res.queryId);
    raw.writeHeader('x-accel-buffering', 'no');
    for (const [name, value] of Object.entries(headers)) raw.writeHeader(name, value);
  });
  res.started = true;
  res.status = response.status;
  const reader = response.body.getReader();
  res.onAbort(() => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.aborted) break;
      let ok = true;
      raw.cork(() => {
        ok = raw.write(value);
      });
      if (!ok) await writable(ctx);
    }
  } finally {
    if (!res.aborted) {
      res.finished = true;
      raw.cork(() => raw.end());
      res.reportFinished(response.status);
    }
  }
}

/** writable resolves once uWS can take more of this response, or the client is gone. */
function writable(ctx: RequestContext): Promise<void> {
  return new Promise((resolve) => {
    ctx.res.onAbort(resolve);
    ctx.res.raw.onWritable(() => {
      resolve();
      return true;
    });
  });
}
