/**
 * Which remote write message a request carries, from its headers, as the 2.0 specification
 * negotiates it: `Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request`
 * for 2.0, `application/x-protobuf` without `proto` (or with `proto=prometheus.WriteRequest`)
 * for 1.0, and 1.0 when no Content-Type is sent, since 1.0 senders predate the parameter. Any
 * other media type or message, and any Content-Encoding but snappy (the one both versions
 * define; absent means snappy, as 1.0 senders assumed), is unsupported: the receiver answers
 * 415 so the sender can fall back.
 */
import { mediaType } from './contentType.js';
import { decodeRemoteWrite } from './remoteWrite.js';
import { decodeRemoteWrite2 } from './remoteWrite2.js';
import type { RemoteWriteOptions, RemoteWriteResult } from './remoteWriteAssembler.js';

export type RemoteWriteVersion = '1.0' | '2.0';

export const REMOTE_WRITE_V1_PROTO = 'prometheus.WriteRequest';
export const REMOTE_WRITE_V2_PROTO = 'io.prometheus.write.v2.Request';

/** RemoteWriteNegotiation is the version to decode, or why the request cannot be taken. */
export type RemoteWriteNegotiation = { version: RemoteWriteVersion } | { unsupported: string };

/** protoParameter returns the `proto` parameter of a Content-Type, or undefined without one. */
function protoParameter(contentType: string): string | undefined {
  for (const part of contentType.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim().toLowerCase() !== 'proto') continue;
    return part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** negotiateRemoteWrite reads the Content-Type and Content-Encoding headers of a remote write request. */
export function negotiateRemoteWrite(contentType: string | undefined, contentEncoding: string | undefined): RemoteWriteNegotiation {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'snappy') {
    return { unsupported: `unsupported Content-Encoding ${JSON.stringify(contentEncoding)}; remote write bodies are snappy-compressed` };
  }
  if (contentType === undefined || contentType.trim() === '') return { version: '1.0' };
  const media = mediaType(contentType);
  if (media !== 'application/x-protobuf') {
    return { unsupported: `unsupported Content-Type ${JSON.stringify(contentType)}; remote write takes application/x-protobuf` };
  }
  const proto = protoParameter(contentType);
  if (proto === undefined || proto === REMOTE_WRITE_V1_PROTO) return { version: '1.0' };
  if (proto === REMOTE_WRITE_V2_PROTO) return { version: '2.0' };
  return { unsupported: `unsupported remote write message proto=${JSON.stringify(proto)}; use ${REMOTE_WRITE_V1_PROTO} or ${REMOTE_WRITE_V2_PROTO}` };
}

/** decodeRemoteWriteVersion decodes a snappy-compressed body of the negotiated version. */
export function decodeRemoteWriteVersion(version: RemoteWriteVersion, body: Uint8Array, opts: RemoteWriteOptions): RemoteWriteResult {
  return version === '2.0' ? decodeRemoteWrite2(body, opts) : decodeRemoteWrite(body, opts);
}
