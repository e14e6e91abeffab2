import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64, bytesToHexRange } from '../../../engine/ingest/bytesText.js';
import { levelFromSeverityNumber, levelFromText } from '../../../engine/ingest/severity.js';
import { decodeUtf8, decodeUtf8Strict, isValidUtf8 } from '../../../engine/ingest/utf8.js';
import { utf8ByteLength } from '../../../engine/common/utf8.js';

const enc = new TextEncoder();

describe('decodeUtf8', () => {
  it('returns the same text as TextDecoder for many short strings, despite interning collisions', () => {
    const texts = Array.from({ length: 6000 }, (_, i) => `k${i.toString(36)}.${'x'.repeat(i % 20)}`);
    for (const round of [0, 1]) {
      for (const text of texts) {
        const bytes = enc.encode(`##${text}##`);
        expect(decodeUtf8(bytes, 2, bytes.length - 2), `round ${round}`).toBe(text);
      }
    }
  });

  it('keeps a leading byte-order mark and replaces malformed bytes', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61]);
    expect(decodeUtf8(bom, 0, bom.length)).toBe('\uFEFFa');
    const bad = new Uint8Array([0x61, 0x80, 0x62]);
    expect(decodeUtf8(bad, 0, bad.length)).toBe('a\uFFFDb');
  });

  it('decodeUtf8Strict refuses malformed bytes and accepts valid text of any length', () => {
    const long = enc.encode('ünïcödé '.repeat(20));
    expect(decodeUtf8Strict(long, 0, long.length)).toBe('ünïcödé '.repeat(20));
    expect(decodeUtf8Strict(new Uint8Array([0x61, 0xff]), 0, 2)).toBeUndefined();
  });
});

describe('isValidUtf8', () => {
  const cases: Array<[number[], boolean]> = [
    [[0x61, 0x62], true],
    [[0xc3, 0xa9], true],
    [[0xe2, 0x82, 0xac], true],
    [[0xf0, 0x9f, 0x98, 0x80], true],
    [[0xc0, 0x80], false], // overlong NUL
    [[0xe0, 0x80, 0x80], false], // overlong
    [[0xed, 0xa0, 0x80], false], // surrogate
    [[0xf4, 0x90, 0x80, 0x80], false], // past U+10FFFF
    [[0xe2, 0x82], false], // truncated
    [[0x80], false],
  ];
  for (const [bytes, valid] of cases) {
    it(`${bytes.map((b) => b.toString(16)).join(' ')} is ${valid ? 'valid' : 'invalid'}`, () => {
      expect(isValidUtf8(new Uint8Array(bytes), 0, bytes.length)).toBe(valid);
    });
  }

  it('utf8ByteLength matches TextEncoder', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\uD800b', 'mixed é€😀 text']) {
      expect(utf8ByteLength(text)).toBe(enc.encode(text).length);
    }
  });
});

describe('bytes as text', () => {
  it('renders hex and base64 and reads both base64 alphabets', () => {
    const bytes = new Uint8Array([0, 1, 0xab, 0xff, 0x10]);
    expect(bytesToHexRange(bytes, 0, 5)).toBe('0001abff10');
    expect(bytesToHexRange(new Uint8Array(200).fill(0xa5), 0, 200)).toBe('a5'.repeat(200));
    for (let n = 0; n < 10; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 97 + 250) & 0xff);
      expect(bytesToBase64(data)).toBe(Buffer.from(data).toString('base64'));
      expect(base64ToBytes(Buffer.from(data).toString('base64'))).toEqual(data);
      expect(base64ToBytes(Buffer.from(data).toString('base64url'))).toEqual(data);
    }
    expect(base64ToBytes('ab$c')).toBeUndefined();
  });
});

describe('severity normalization', () => {
  it('maps common severity texts', () => {
    const cases: Array<[string, string | undefined]> = [
      ['INFO', 'info'], ['Information', 'info'], ['notice', 'info'], ['WARNING', 'warn'], ['Warn', 'warn'],
      ['err', 'error'], ['ERROR', 'error'], ['SEVERE', 'error'], ['critical', 'fatal'], ['EMERG', 'fatal'],
      ['panic', 'fatal'], ['TRACE', 'trace'], ['verbose', 'trace'], ['DEBUG', 'debug'], ['dbg', 'debug'],
      ['INFO2', 'info'], ['Error3', 'error'], [' warn ', 'warn'], ['chatty', undefined], ['', undefined],
      ['constructor', undefined], ['__proto__', undefined],
    ];
    for (const [text, level] of cases) expect(levelFromText(text), text).toBe(level);
  });

  it('maps severity numbers by range', () => {
    const expected = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
    for (let n = 1; n <= 24; n++) expect(levelFromSeverityNumber(n)).toBe(expected[Math.floor((n - 1) / 4)]);
    expect(levelFromSeverityNumber(0)).toBeUndefined();
    expect(levelFromSeverityNumber(25)).toBeUndefined();
    expect(levelFromSeverityNumber(-1)).toBeUndefined();
  });
});
