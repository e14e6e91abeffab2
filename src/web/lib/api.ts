import { takeEarlySession } from './early.js';

/**
 * The app talks to the API at its own origin. The API key travels in the HttpOnly `api_key`
 * cookie set at sign-in, so nothing here ever holds it after the sign-in request.
 */

/** RequestFailure is an error answer of the API, in the spec's {status, code, message} shape. */
export class RequestFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'RequestFailure';
  }
}

/** onUnauthorized is told when any request answers 401, so the app can go to sign-in. */
let unauthorizedListener: (() => void) | undefined;
export function onUnauthorized(listener: () => void): void {
  unauthorizedListener = listener;
}

async function failureOf(res: Response): Promise<RequestFailure> {
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // Not JSON: keep the status line.
  }
  if (res.status === 401) unauthorizedListener?.();
  const message = typeof body.message === 'string' ? body.message : `${res.status} ${res.statusText}`;
  return new RequestFailure(res.status, typeof body.code === 'string' ? body.code : 'HTTP_' + res.status, message, body);
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** call sends one JSON request and returns the parsed JSON answer (undefined for 204). */
export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (!res.ok) throw await failureOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** StreamEvent is one `data:` event of a query stream. */
export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * readEvents hands each SSE event of a response body to `onEvent` as it arrives; `onEvent`
 * returning true stops reading (the stream's terminal event). Resolves when reading stopped
 * or the connection closed.
 */
export async function readEvents<E extends StreamEvent>(body: ReadableStream<BufferSource>, onEvent: (event: E) => boolean): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      if (onEvent(JSON.parse(data) as E)) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    }
  }
}

/** postStream posts a JSON body asking for an event stream; a refusal before the stream starts rejects with RequestFailure. */
export async function postStream(path: string, body: unknown, signal: AbortSignal): Promise<ReadableStream<BufferSource>> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });
  if (!res.ok || res.body === null) throw await failureOf(res);
  return res.body;
}

/**
 * streamQuery posts a query and hands each SSE event to `onEvent` as it arrives, so a panel
 * draws partial results long before the stream ends. Resolves after the terminal event (or
 * when the connection closes); rejects with RequestFailure when the query is refused before
 * the stream starts.
 */
export async function streamQuery(path: string, body: Record<string, unknown>, onEvent: (event: StreamEvent) => void, signal: AbortSignal): Promise<void> {
  await readEvents(await postStream(path, body, signal), (event) => {
    onEvent(event);
    return event.type === 'done' || event.type === 'error';
  });
}

/** Session is who the cookie signs in as. */
export interface Session {
  kind: 'org' | 'system';
  org?: string;
}

export const session = {
  current: async () => (await takeEarlySession<Session>()) ?? call<Session>('/api/v1/session'),
  signIn: (key: string) => call<Session>('/api/v1/session', { method: 'POST', headers: { 'x-svc-api-key': key } }),
  signOut: () => call<void>('/api/v1/session', { method: 'DELETE' }),
};
