import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContentEncoding, gunzipIfNeeded } from '../../../engine/ingest/contentEncoding.js';
import { IngestError } from '../../../engine/ingest/errors.js';
import { snappyCompress } from '../../../engine/ingest/snappy.js';

const text = new TextEncoder().encode('{"resourceLogs":[]}'.repeat(50));

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    return (err as IngestError).code;
  }
  return 'none';
}

describe('decodeContentEncoding', () => {
  it('passes identity and missing encodings through', () => {
    expect(decodeContentEncoding(text, undefined, 1 << 20)).toBe(text);
    expect(decodeContentEncoding(text, 'identity', 1 << 20)).toBe(text);
  });

  it('inflates gzip, x-gzip, zlib and raw deflate, and snappy', () => {
    expect(decodeContentEncoding(gzipSync(text), 'gzip', 1 << 20)).toEqual(new Uint8Array(text));
    expect(decodeContentEncoding(gzipSync(text), 'X-Gzip', 1 << 20)).toEqual(new Uint8Array(text));
    expect(decodeContentEncoding(deflateSync(text), 'deflate', 1 << 20)).toEqual(new Uint8Array(text));
    expect(decodeContentEncoding(deflateRawSync(text), 'deflate', 1 << 20)).toEqual(new Uint8Array(text));
    expect(decodeContentEncoding(snappyCompress(text), 'snappy', 1 << 20)).toEqual(text);
  });

  it('undoes stacked encodings in reverse order', () => {
    const body = gzipSync(snappyCompress(text));
    expect(decodeContentEncoding(body, 'snappy, gzip', 1 << 20)).toEqual(text);
  });

  it('fails fast on a gzip bomb with PAYLOAD_TOO_LARGE', () => {
    const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100_000);
    const started = performance.now();
    expect(codeOf(() => decodeContentEncoding(bomb, 'gzip', 1024 * 1024))).toBe('PAYLOAD_TOO_LARGE');
    expect(performance.now() - started).toBeLessThan(3000);
    expect(codeOf(() => gunzipIfNeeded(bomb, 1024 * 1024))).toBe('PAYLOAD_TOO_LARGE');
    expect(codeOf(() => decodeContentEncoding(deflateSync(new Uint8Array(8 << 20)), 'deflate', 1 << 20))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(codeOf(() => decodeContentEncoding(snappyCompress(new Uint8Array(4 << 20)), 'snappy', 1 << 20))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('rejects identity bodies over the limit, corrupt data and unknown encodings', () => {
    expect(codeOf(() => decodeContentEncoding(text, 'identity', 10))).toBe('PAYLOAD_TOO_LARGE');
    expect(codeOf(() => decodeContentEncoding(new Uint8Array([0x1f, 0x8b, 1, 2, 3]), 'gzip', 1 << 20))).toBe('BAD_REQUEST');
    try {
      decodeContentEncoding(text, 'br', 1 << 20);
      throw new Error('unreachable');
    } catch (err) {
      expect((err as Error).message).toMatch(/unsupported Content-Encoding "br"/);
    }
  });
});

describe('gunzipIfNeeded', () => {
  it('inflates only bodies with the gzip magic', () => {
    expect(gunzipIfNeeded(gzipSync(text), 1 << 20)).toEqual(new Uint8Array(text));
    expect(gunzipIfNeeded(text, 1 << 20)).toBe(text);
  });
});
