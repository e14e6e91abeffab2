import { ApiError } from '../errors.js';

/**
 * requireEventStream answers 406 SSE_UNSUPPORTED when the client's Accept header rules out
 * text/event-stream. No Accept header, `*\/*` and `text/*` all accept it, as HTTP says.
 */
export function requireEventStream(accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  for (const part of accept.split(',')) {
    const [media, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (media === 'text/event-stream' || media === 'text/*' || media === '*/*') return;
  }
  throw new ApiError('SSE_UNSUPPORTED', 'this endpoint streams text/event-stream; the Accept header excludes it');
}
