import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * REDACTED_PATHS names every place a secret could reach a log record. Request handlers log
 * only a sanitized path (see redactUrlQuery) and never raw headers, and this list is a second
 * line of defence should someone log a headers object.
 */
const REDACTED_PATHS = [
  'headers["x-svc-api-key"]',
  'headers["api-key"]',
  'headers.authorization',
  'headers.cookie',
  'req.headers["x-svc-api-key"]',
  'req.headers["api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'apiKey',
  'secret',
  'key.secret',
];

/** createLogger builds the process logger; `destination` lets tests capture the output. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { svc: 'sluice' },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** SECRET_QUERY_PARAMS are query parameter names (lowercased, decoded) whose value is a secret. */
const SECRET_QUERY_PARAMS = new Set(['apikey', 'api_key', 'api-key', 'x-svc-api-key']);

/** decodedName decodes a query parameter name the way URLSearchParams does, leniently. */
function decodedName(raw: string): string {
  const plus = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    // Malformed escapes: decode what can be decoded, so `%61piKey%ZZ` still reads as apiKey….
    return plus.replace(/%[0-9a-f]{2}/gi, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
  }
}

/**
 * redactUrlQuery blanks secret-bearing query parameters so a URL can be logged safely. Names are
 * compared decoded and case-insensitively: `%61piKey=…` is the apiKey parameter to the server,
 * so it is one to the log too. The value is replaced whole, however it is encoded.
 */
export function redactUrlQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_QUERY_PARAMS.has(decodedName(name).trim().toLowerCase()) ? `${name}=[REDACTED]` : pair;
    })
    .join('&');
}
