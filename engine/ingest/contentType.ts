/**
 * Media-type detection for ingestion bodies. OTLP/HTTP sends `application/x-protobuf` or
 * `application/json`; Loki's push API the same pair. Parameters (`; charset=utf-8`) and case
 * are ignored.
 */
import { badRequest } from './errors.js';

/** BodyFormat is how a body is encoded. */
export type BodyFormat = 'protobuf' | 'json';

/** mediaType returns the lowercase media type of a Content-Type value without parameters. */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * bodyFormat maps a Content-Type to the body's format. `fallback` decides a missing
 * Content-Type; anything else that is neither protobuf nor JSON is a BAD_REQUEST naming the
 * accepted types.
 */
export function bodyFormat(contentType: string | undefined, what: string, fallback: () => BodyFormat): BodyFormat {
  const media = mediaType(contentType);
  if (media === '') return fallback();
  if (media === 'application/x-protobuf' || media === 'application/protobuf' || media === 'application/vnd.google.protobuf') {
    return 'protobuf';
  }
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  throw badRequest(
    `${what}: unsupported Content-Type ${JSON.stringify(contentType)}; use application/x-protobuf or application/json`,
  );
}

/** sniffFormat guesses a body's format from its first non-blank byte: `{` means JSON. */
export function sniffFormat(body: Uint8Array): BodyFormat {
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    return b === 0x7b ? 'json' : 'protobuf';
  }
  return 'protobuf';
}
