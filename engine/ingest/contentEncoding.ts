/**
 * Content-Encoding handling for ingestion bodies. OTLP exporters usually gzip; Loki and remote
 * write bodies are snappy by contract (their decoders unwrap that themselves) but may also be
 * sent with an explicit encoding. Every path enforces a bound on the decompressed size and
 * fails as soon as it is passed, so a few kilobytes of zip bomb cannot allocate gigabytes.
 */
import { constants as bufferConstants } from 'node:buffer';
import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { IngestError, badRequest, payloadTooLarge } from './errors.js';
import { snappyDecompress } from './snappy.js';

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** isGzip tells whether `body` starts with the gzip magic bytes. */
export function isGzip(body: Uint8Array): boolean {
  return body.length >= 2 && body[0] === GZIP_MAGIC_0 && body[1] === GZIP_MAGIC_1;
}

/**
 * gunzipIfNeeded inflates `body` when it carries the gzip magic bytes and returns it untouched
 * otherwise, for clients that gzip without saying so.
 */
export function gunzipIfNeeded(body: Uint8Array, maxBytes: number): Uint8Array {
  if (!isGzip(body)) return checkSize(body, maxBytes, 'request body');
  return gunzip(body, maxBytes);
}

/**
 * decodeContentEncoding undoes an HTTP Content-Encoding (`gzip`, `x-gzip`, `deflate`,
 * `snappy`, `identity` or none; a comma-separated list is undone last-applied first) and
 * enforces `maxBytes` on the result. Unknown encodings are BAD_REQUEST.
 */
export function decodeContentEncoding(body: Uint8Array, encoding: string | undefined, maxBytes: number): Uint8Array {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let out = body;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i];
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        out = gunzip(out, maxBytes);
        break;
      case 'deflate':
        out = inflate(out, maxBytes);
        break;
      case 'snappy':
        out = snappyDecompress(out, maxBytes);
        break;
      default:
        throw badRequest(`unsupported Content-Encoding ${JSON.stringify(coding)}; use gzip, deflate, snappy or identity`);
    }
  }
  return checkSize(out, maxBytes, 'request body');
}

function checkSize(body: Uint8Array, maxBytes: number, what: string): Uint8Array {
  if (body.length > maxBytes) {
    throw new IngestError('PAYLOAD_TOO_LARGE', `${what} of ${body.length} bytes exceeds the limit of ${maxBytes} bytes`);
  }
  return body;
}

function gunzip(body: Uint8Array, maxBytes: number): Uint8Array {
  return runZlib('gzip', maxBytes, () => gunzipSync(body, { maxOutputLength: zlibLimit(maxBytes) }));
}

/**
 * inflate handles HTTP `deflate`, which is specified as zlib-wrapped but which some clients
 * send raw; the raw form is tried when the zlib header is missing.
 */
function inflate(body: Uint8Array, maxBytes: number): Uint8Array {
  const looksZlib = body.length >= 2 && (body[0] & 0x0f) === 8 && ((body[0] << 8) | body[1]) % 31 === 0;
  if (looksZlib) return runZlib('deflate', maxBytes, () => inflateSync(body, { maxOutputLength: zlibLimit(maxBytes) }));
  return runZlib('deflate', maxBytes, () => inflateRawSync(body, { maxOutputLength: zlibLimit(maxBytes) }));
}

/** zlibLimit maps `maxBytes` into the range zlib accepts for maxOutputLength. */
function zlibLimit(maxBytes: number): number {
  return Math.max(1, Math.min(Math.floor(maxBytes), bufferConstants.MAX_LENGTH));
}

function runZlib(name: string, maxBytes: number, decode: () => Uint8Array): Uint8Array {
  try {
    const out = decode();
    // A plain view of the Buffer zlib returns, so callers see one array type whatever the encoding.
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw payloadTooLarge(`${name} body`, maxBytes);
    }
    throw badRequest(`invalid ${name} body: ${e.message}`);
  }
}
