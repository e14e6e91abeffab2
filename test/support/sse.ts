/**
 * readSse is a real SSE client over fetch: it reads the response body as it streams, splits
 * events on blank lines and parses each `data:` payload. It returns the raw text too, so tests
 * can check the framing byte for byte.
 */
export interface SseEventParsed {
  type: string;
  data: Record<string, unknown>;
}

export interface SseResponse {
  status: number;
  headers: Headers;
  events: SseEventParsed[];
  raw: string;
  /** body is the parsed JSON body when the answer was not a stream (an error before streaming). */
  body?: Record<string, unknown>;
}

export async function readSse(res: Response, onEvent?: (e: SseEventParsed) => boolean | void): Promise<SseResponse> {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: res.status, headers: res.headers, events: [], raw: '', body: (await res.json()) as Record<string, unknown> };
  }
  const events: SseEventParsed[] = [];
  let raw = '';
  let pending = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    raw += text;
    pending += text;
    let cut: number;
    while ((cut = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, cut);
      pending = pending.slice(cut + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      const event = JSON.parse(data) as SseEventParsed;
      events.push(event);
      if (onEvent?.(event) === false) {
        await reader.cancel();
        return { status: res.status, headers: res.headers, events, raw };
      }
    }
  }
  return { status: res.status, headers: res.headers, events, raw };
}

export function query(url: string, path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
  });
}
