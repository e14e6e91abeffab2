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
    destination ?? bufferedStdout(),
  );
}

/**
 * LOG_BUFFER_BYTES and LOG_FLUSH_MS bound how long a log line waits in the process: it is written
 * once 4 KiB have gathered or 200 ms after it was logged. One write per access-log line cost a
 * hand-over to libuv's thread pool per request, about 150 µs of the event loop on a 2-core machine
 * (most of a small query's logging); pino flushes what is left synchronously when the process exits.
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 200;

/** bufferedStdout is the default destination: standard output, written off the event loop in batches. */
function bufferedStdout(): DestinationStream {
  const stdout = pino.destination({ fd: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  const write = stdout.write.bind(stdout);
  let flushTimer: NodeJS.Timeout | undefined;
  stdout.write = (line: string): boolean => {
    const ok = write(line);
    if (flushTimer === undefined) {
      flushTimer = setTimeout(() => {
        flushTimer = undefined;
        // With a callback, a destination already closed (the process is stopping) reports instead of throwing.
        stdout.flush(() => undefined);
      }, LOG_FLUSH_MS);
      flushTimer.unref();
    }
    return ok;
  };
  return stdout;
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
