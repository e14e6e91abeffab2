import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { IngestError } from '../../../engine/ingest/errors.js';
import {
  ProtoReader,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
  fieldTag,
  nanosWordsToMillis,
  wordsToInt64,
} from '../../../engine/ingest/protobuf.js';
import { ProtoWriter } from '../../../engine/ingest/encode/protoWriter.js';

function expectIngestError(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).code).toBe('BAD_REQUEST');
    expect((err as Error).message).toMatch(pattern);
    return;
  }
  throw new Error('expected an IngestError');
}

describe('ProtoReader against protobufjs Writer output', () => {
  it('reads varints of every width, signed and zigzag forms, fixed and floating fields', () => {
    const w = protobuf.Writer.create();
    const u32 = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 32 - 1];
    for (const v of u32) w.uint32(v);
    const i32 = [-1, -2, -2147483648, 2147483647, -300];
    for (const v of i32) w.int32(v);
    const s32 = [0, -1, 1, -64, 63, -2147483648, 2147483647];
    for (const v of s32) w.sint32(v);
    const u64 = ['0', '1', '4294967295', '4294967296', '9007199254740991', '18446744073709551615'];
    for (const v of u64) w.uint64(v);
    const i64 = ['-1', '-9007199254740991', '9223372036854775807', '-9223372036854775808', '1700000000123'];
    for (const v of i64) w.int64(v);
    const s64 = ['-1', '1', '-4294967296', '9007199254740991', '-9007199254740991'];
    for (const v of s64) w.sint64(v);
    w.fixed32(0xdeadbeef).fixed64('1700000000123456789').sfixed64('-42').double(Math.PI).double(-0).float(1.5).bool(true);
    const r = new ProtoReader(w.finish());
    for (const v of u32) expect(r.uint32()).toBe(v);
    for (const v of i32) expect(r.int32()).toBe(v);
    for (const v of s32) expect(r.sint32()).toBe(v);
    for (const v of u64) {
      r.varint64();
      expect((BigInt(r.hi) << 32n) | BigInt(r.lo)).toBe(BigInt(v));
    }
    for (const v of i64) expect(BigInt(r.int64Value())).toBe(BigInt(v));
    for (const v of s64) expect(r.sint64Number()).toBe(Number(v));
    expect(r.fixed32()).toBe(0xdeadbeef);
    expect(r.fixed64BigInt()).toBe(1700000000123456789n);
    expect(r.sfixed64Number()).toBe(-42);
    expect(r.double()).toBe(Math.PI);
    expect(Object.is(r.double(), -0)).toBe(true);
    expect(r.float()).toBe(1.5);
    expect(r.bool()).toBe(true);
    expect(r.pos).toBe(r.limit);
  });

  it('reads strings and bytes as views and skips unknown fields of every wire type', () => {
    const w = protobuf.Writer.create();
    w.uint32(fieldTag(1, WIRE_VARINT)).uint64('18446744073709551615');
    w.uint32(fieldTag(2, WIRE_FIXED64)).fixed64(7);
    w.uint32(fieldTag(3, WIRE_LENGTH_DELIMITED)).bytes(new Uint8Array([1, 2, 3]));
    w.uint32(fieldTag(4, WIRE_FIXED32)).fixed32(9);
    // a legacy group: start(5) { field 1 varint } end(5)
    w.uint32(fieldTag(5, 3)).uint32(fieldTag(1, WIRE_VARINT)).uint32(5).uint32(fieldTag(5, 4));
    w.uint32(fieldTag(6, WIRE_LENGTH_DELIMITED)).string('héllo wörld, a string long enough to leave the ASCII path €');
    w.uint32(fieldTag(7, WIRE_LENGTH_DELIMITED)).bytes(new Uint8Array([0xca, 0xfe]));
    const r = new ProtoReader(w.finish());
    for (let i = 0; i < 5; i++) r.skip(r.tag());
    expect(r.tag()).toBe(fieldTag(6, WIRE_LENGTH_DELIMITED));
    expect(r.string()).toBe('héllo wörld, a string long enough to leave the ASCII path €');
    expect(r.tag()).toBe(fieldTag(7, WIRE_LENGTH_DELIMITED));
    expect(Array.from(r.bytes())).toEqual([0xca, 0xfe]);
    expect(r.pos).toBe(r.limit);
  });

  it('agrees with protobufjs on random varints', () => {
    const values: bigint[] = [];
    let seed = 12345;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const w = protobuf.Writer.create();
    for (let i = 0; i < 2000; i++) {
      const v = (BigInt(next()) << BigInt(next() % 33)) | BigInt(next() % 7);
      const clamped = BigInt.asUintN(64, v);
      values.push(clamped);
      w.uint64(clamped.toString());
    }
    const r = new ProtoReader(w.finish());
    for (const v of values) {
      r.varint64();
      expect((BigInt(r.hi) << 32n) | BigInt(r.lo)).toBe(v);
    }
  });
});

describe('ProtoReader bounds checks', () => {
  it('rejects a varint cut short at every position', () => {
    const bytes = new ProtoWriter().uint64(2n ** 63n).finish();
    for (let cut = 0; cut < bytes.length; cut++) {
      expectIngestError(() => new ProtoReader(bytes.subarray(0, cut)).varint64(), /truncated|varint/);
      expectIngestError(() => new ProtoReader(bytes.subarray(0, cut)).uint32(), /truncated|varint/);
    }
  });

  it('rejects varints longer than 10 bytes', () => {
    const bytes = new Uint8Array(12).fill(0x80);
    expectIngestError(() => new ProtoReader(bytes).varint64(), /longer than 10 bytes/);
    expectIngestError(() => new ProtoReader(bytes).uint32(), /longer than 10 bytes/);
  });

  it('rejects fixed-width reads past the end', () => {
    expectIngestError(() => new ProtoReader(new Uint8Array(7)).double(), /truncated input: double at byte 0/);
    expectIngestError(() => new ProtoReader(new Uint8Array(3)).fixed32(), /fixed32/);
    expectIngestError(() => new ProtoReader(new Uint8Array(7)).fixed64BigInt(), /fixed64/);
  });

  it('rejects a length prefix that runs past the buffer', () => {
    const bytes = new Uint8Array([0x0a, 0x05, 0x61, 0x62]);
    const r = new ProtoReader(bytes);
    r.tag();
    expectIngestError(() => r.string(), /length 5 at byte 1 exceeds the 2 bytes left/);
  });

  it('rejects invalid wire types, field number 0 and mismatched groups', () => {
    expectIngestError(() => new ProtoReader(new Uint8Array([0x0f])).skip(0x0f), /invalid wire type 7/);
    expectIngestError(() => new ProtoReader(new Uint8Array([0x00])).tag(), /invalid field number 0/);
    const group = new ProtoWriter().tag(5, 3).tag(6, 4).finish();
    const r = new ProtoReader(group);
    expectIngestError(() => r.skip(r.tag()), /mismatched end of group/);
  });

  it('checkEnd reports a field that overruns its enclosing message', () => {
    const r = new ProtoReader(new Uint8Array([0x08, 0x96, 0x01]));
    r.tag();
    r.uint32();
    expectIngestError(() => r.checkEnd(2), /runs past the end of its enclosing message/);
  });
});

describe('64-bit helpers', () => {
  it('nanosWordsToMillis floors exactly, matching BigInt division', () => {
    let seed = 99;
    const next = (): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed;
    };
    const cases: bigint[] = [0n, 999_999n, 1_000_000n, 1_700_000_000_123_456_789n, 2n ** 64n - 1n, 4_294_967_296n];
    for (let i = 0; i < 5000; i++) cases.push((BigInt(next()) << 32n) | BigInt(next()));
    for (const ns of cases) {
      const lo = Number(ns & 0xffffffffn);
      const hi = Number(ns >> 32n);
      expect(nanosWordsToMillis(lo, hi)).toBe(Number(ns / 1_000_000n));
    }
  });

  it('wordsToInt64 returns numbers when exact and bigints otherwise', () => {
    expect(wordsToInt64(5, 0)).toBe(5);
    expect(wordsToInt64(0xffffffff, 0xffffffff)).toBe(-1);
    expect(wordsToInt64(0, 0x80000000)).toBe(-(2n ** 63n));
    expect(wordsToInt64(0xffffffff, 0x7fffffff)).toBe(2n ** 63n - 1n);
  });
});
