/**
 * Credentials is what a request presented, before it is checked: the key and, for
 * `Authorization: ApiKey`, the key id that came with it.
 */
export interface Credentials {
  key: string;
  keyId?: string;
  /** place names where the key came from, for logs (never the key itself). */
  place: CredentialPlace;
}

export type CredentialPlace = 'x-svc-api-key' | 'api-key' | 'authorization-apikey' | 'authorization-basic' | 'cookie' | 'query';

/** A place that is present but unreadable still decides: its key is treated as invalid. */
const MALFORMED = '';

function decodeBase64Pair(value: string): [string, string] | undefined {
  const text = Buffer.from(value.trim(), 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return [text.slice(0, colon), text.slice(colon + 1)];
}

function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

/**
 * extractCredentials looks in the places the spec lists, in its order, and returns the first
 * place present. Later places are not consulted even when the first one holds a wrong key: a
 * client that sends two keys gets the result of the one it ranks first, never a silent fallback.
 * `queryKey` is the `apiKey` query parameter, which only the tool gateway routes accept (a
 * last resort, since URLs leak into logs).
 */
export function extractCredentials(headers: Record<string, string>, queryKey?: string): Credentials | undefined {
  const direct = headers['x-svc-api-key'];
  if (direct !== undefined) return { key: direct.trim(), place: 'x-svc-api-key' };
  const apiKey = headers['api-key'];
  if (apiKey !== undefined) return { key: apiKey.trim(), place: 'api-key' };
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const space = authorization.indexOf(' ');
    const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : authorization.slice(space + 1);
    if (scheme === 'apikey') {
      const pair = decodeBase64Pair(value);
      return pair ? { key: pair[1], keyId: pair[0], place: 'authorization-apikey' } : { key: MALFORMED, place: 'authorization-apikey' };
    }
    if (scheme === 'basic') {
      const pair = decodeBase64Pair(value);
      return { key: pair ? pair[1] : MALFORMED, place: 'authorization-basic' };
    }
    // Other schemes (Bearer from a proxy's own auth, for instance) are not ours to judge.
  }
  const cookie = headers.cookie === undefined ? undefined : cookieValue(headers.cookie, 'api_key');
  if (cookie !== undefined) return { key: cookie, place: 'cookie' };
  if (queryKey !== undefined) return { key: queryKey, place: 'query' };
  return undefined;
}
