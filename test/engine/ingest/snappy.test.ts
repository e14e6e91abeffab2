import { describe, expect, it } from 'vitest';
import { IngestError } from '../../../engine/ingest/errors.js';
import {
  snappyCompress,
  snappyDecodedLength,
  snappyDecompress,
  snappyMaxCompressedLength,
} from '../../../engine/ingest/snappy.js';

function pseudoRandomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

function logLikeText(lines: number): Uint8Array {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    parts.push(`ts=2024-05-0${i % 9}T12:00:${String(i % 60).padStart(2, '0')}Z level=info msg="request served" path=/api/v1/items/${i % 17} status=200 duration_ms=${(i * 7) % 300}\n`);
  }
  return new TextEncoder().encode(parts.join(''));
}

/** expectSameBytes compares large arrays natively (a deep equal walks them element by element). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.compare(Buffer.from(actual.buffer, actual.byteOffset, actual.length), Buffer.from(expected.buffer, expected.byteOffset, expected.length))).toBe(0);
}

function expectError(fn: () => unknown, code: string, pattern: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).code).toBe(code);
    expect((err as Error).message).toMatch(pattern);
    return;
  }
  throw new Error('expected an IngestError');
}

describe('snappy round trip', () => {
  const inputs: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['one byte', new Uint8Array([42])],
    ['short text', new TextEncoder().encode('hello hello hello hello')],
    ['zeros over several blocks', new Uint8Array(200_000)],
    ['random', pseudoRandomBytes(150_000, 7)],
    ['log lines', logLikeText(3000)],
    ['repeating pattern (overlapping copies)', new TextEncoder().encode('ab'.repeat(10_000) + 'xyz'.repeat(5000))],
  ];
  for (const [name, input] of inputs) {
    it(`restores ${name}`, () => {
      const compressed = snappyCompress(input);
      expect(compressed.length).toBeLessThanOrEqual(snappyMaxCompressedLength(input.length));
      expect(snappyDecodedLength(compressed)).toBe(input.length);
      expectSameBytes(snappyDecompress(compressed), input);
    });
  }

  it('actually compresses redundant data', () => {
    const text = logLikeText(3000);
    expect(snappyCompress(text).length).toBeLessThan(text.length / 3);
    expect(snappyCompress(new Uint8Array(100_000)).length).toBeLessThan(6000);
  });

  it('decodes hand-built blocks using every element type', () => {
    // preamble 11, literal "abcd", copy1 (len 4, offset 4), copy2 (len 2, offset 1) -> "abcdabcddd"... then copy4 len 1 offset 10
    const block = new Uint8Array([
      11,
      0x0c, 0x61, 0x62, 0x63, 0x64, // literal len 4
      0x01, 0x04, // copy1: len 4, offset 4
      0x06, 0x01, 0x00, // copy2: len 2, offset 1
      0x03, 0x0a, 0x00, 0x00, 0x00, // copy4: len 1, offset 10
    ]);
    expect(new TextDecoder().decode(snappyDecompress(block))).toBe('abcdabcddda');
  });

  it('decodes literals with 1- to 4-byte lengths', () => {
    for (const n of [61, 300, 70_000]) {
      const data = pseudoRandomBytes(n, n);
      const tagBytes = n - 1 < 256 ? [60 << 2, n - 1] : n - 1 < 65536 ? [61 << 2, (n - 1) & 0xff, (n - 1) >> 8] : [62 << 2, (n - 1) & 0xff, ((n - 1) >> 8) & 0xff, (n - 1) >> 16];
      const pre: number[] = [];
      let v = n;
      while (v >= 0x80) {
        pre.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      pre.push(v);
      const block = new Uint8Array([...pre, ...tagBytes, ...data]);
      expectSameBytes(snappyDecompress(block), data);
    }
  });
});

describe('snappy rejects malformed input without reading out of bounds', () => {
  it('rejects a missing or overlong preamble', () => {
    expectError(() => snappyDecompress(new Uint8Array(0)), 'BAD_REQUEST', /truncated length preamble/);
    expectError(() => snappyDecompress(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])), 'BAD_REQUEST', /longer than 5 bytes/);
    expectError(() => snappyDecompress(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x7f])), 'BAD_REQUEST', /32 bits/);
  });

  it('refuses a declared length over the limit before allocating', () => {
    // 4 GiB - 1 declared by a 5-byte body
    expectError(() => snappyDecompress(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]), 1 << 20), 'PAYLOAD_TOO_LARGE', /4294967295 bytes/);
  });

  it('rejects copies with offset 0 or pointing before the start', () => {
    expectError(() => snappyDecompress(new Uint8Array([4, 0x00, 0x61, 0x01, 0x00])), 'BAD_REQUEST', /copy offset 0/);
    expectError(() => snappyDecompress(new Uint8Array([5, 0x00, 0x61, 0x01, 0x05])), 'BAD_REQUEST', /copy offset 5 is outside the 1 bytes written/);
  });

  it('rejects output overflowing the declared length and short output', () => {
    expectError(() => snappyDecompress(new Uint8Array([1, 0x04, 0x61, 0x62])), 'BAD_REQUEST', /overflows the declared length 1/);
    expectError(() => snappyDecompress(new Uint8Array([3, 0x04, 0x61, 0x62])), 'BAD_REQUEST', /decoded 2 bytes but the block declares 3/);
    expectError(() => snappyDecompress(new Uint8Array([3, 0x00, 0x61, 0x05, 0x01])), 'BAD_REQUEST', /copy of 5 bytes overflows the declared length 3/);
  });

  it('rejects literals and copies cut short', () => {
    expectError(() => snappyDecompress(new Uint8Array([5, 0x10, 0x61])), 'BAD_REQUEST', /literal of 5 bytes runs past the input/);
    expectError(() => snappyDecompress(new Uint8Array([5, 0xf0])), 'BAD_REQUEST', /literal length runs past the input/);
    expectError(() => snappyDecompress(new Uint8Array([5, 0x00, 0x61, 0x02, 0x01])), 'BAD_REQUEST', /copy runs past the input/);
  });

  it('never throws anything but IngestError on random or mutated input', () => {
    const valid = snappyCompress(logLikeText(50));
    for (let i = 0; i < 3000; i++) {
      const input = i % 2 === 0 ? pseudoRandomBytes(1 + (i % 300), i) : valid.slice();
      if (i % 2 === 1) {
        const at = (i * 7919) % input.length;
        input[at] ^= 1 + (i % 255);
      }
      try {
        const out = snappyDecompress(input, 1 << 20);
        expect(out.length).toBe(snappyDecodedLength(input));
      } catch (err) {
        expect(err).toBeInstanceOf(IngestError);
      }
    }
  });
});
