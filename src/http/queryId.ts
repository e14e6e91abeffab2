import { randomUUID } from 'node:crypto';

/** RFC 4122 / 9562 layout: versions 1-8 with the 10xx variant (nil and max UUIDs excluded). */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * resolveQueryId echoes a client's correlation id when it is a well-formed UUID and silently
 * replaces anything else, so a malformed id never becomes an error and never lets a client
 * inject arbitrary text into our logs.
 */
export function resolveQueryId(incoming: string | undefined): string {
  if (incoming !== undefined && UUID_RE.test(incoming.trim())) return incoming.trim().toLowerCase();
  return randomUUID();
}
