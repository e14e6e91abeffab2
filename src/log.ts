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

const SECRET_QUERY_PARAMS = /(^|&)(apikey|api_key|x-svc-api-key)=[^&]*/gi;

/** redactUrlQuery blanks secret-bearing query parameters so a URL can be logged safely. */
export function redactUrlQuery(query: string): string {
  return query.replace(SECRET_QUERY_PARAMS, (_m, sep: string, name: string) => `${sep}${name}=[REDACTED]`);
}
