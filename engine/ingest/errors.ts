/**
 * IngestErrorCode is the failure kind of an IngestError. IngestError is thrown when a request
 * body cannot be decoded at all (bad framing, truncated protobuf, malformed JSON, unsupported
 * media type) or is too large once decompressed. Records that decode but break a limit are
 * not errors: they are counted in DecodeResult.rejected. The codes match the service's error
 * table, so the HTTP layer maps them with one lookup.
 */
export type IngestErrorCode = 'BAD_REQUEST' | 'PAYLOAD_TOO_LARGE';

/** IngestError carries one of IngestErrorCode and a message naming what could not be read. */
export class IngestError extends Error {
  readonly code: IngestErrorCode;

  constructor(code: IngestErrorCode, message: string) {
    super(message);
    this.name = 'IngestError';
    this.code = code;
  }
}

/** badRequest builds the BAD_REQUEST IngestError, the common case, in one short call. */
export function badRequest(message: string): IngestError {
  return new IngestError('BAD_REQUEST', message);
}

/** payloadTooLarge reports a body whose decompressed size would pass `maxBytes`. */
export function payloadTooLarge(what: string, maxBytes: number): IngestError {
  return new IngestError('PAYLOAD_TOO_LARGE', `${what} exceeds the limit of ${maxBytes} bytes once decompressed`);
}

/**
 * withContext re-throws an IngestError with a prefix naming what was being decoded, so a
 * message such as "truncated input at byte 12" says which request type it was about.
 */
export function withContext<T>(context: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof IngestError) throw new IngestError(err.code, `${context}: ${err.message}`);
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw badRequest(`${context}: value nested too deeply`);
    }
    throw err;
  }
}
