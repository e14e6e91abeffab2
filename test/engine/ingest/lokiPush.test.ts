import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeContentEncoding,
  decodeLokiPush,
  IngestError,
  parseStreamSelector,
  snappyCompress,
} from '../../../engine/ingest/index.js';
import { pbEncode, PushRequest } from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const SECONDS = Math.floor(NOW_MS / 1000) - 60;
const PROTO = 'application/x-protobuf';

describe('parseStreamSelector', () => {
  it('parses equality selectors with spacing, escapes, raw strings and quoted names', () => {
    expect(parseStreamSelector('{app="api", env="prod"}')).toEqual({ ok: true, labels: [['app', 'api'], ['env', 'prod']] });
    expect(parseStreamSelector(' { a = "x\\"y\\n" ,b=`raw\\n`, } ')).toEqual({
      ok: true,
      labels: [['a', 'x"y\n'], ['b', 'raw\\n']],
    });
    expect(parseStreamSelector('{"service.name"="checkout"}')).toEqual({ ok: true, labels: [['service.name', 'checkout']] });
    expect(parseStreamSelector('{_x1="é"}')).toEqual({ ok: true, labels: [['_x1', 'é']] });
  });

  it('rejects anything that is not a plain label set, saying where', () => {
    const cases: Array<[string, RegExp]> = [
      ['app="api"', /offset 0: expected "\{"/],
      ['{app="api"', /unexpected end of selector/],
      ['{app=~"api"}', /offset 4: expected "=" after label name "app"/],
      ['{app!="api"}', /offset 4: expected "=" after label name "app"/],
      ['{app=="api"}', /expected "=", found "=="/],
      ['{app="api" env="x"}', /offset 11: expected "," or "\}" after label value/],
      ['{app="a", app="b"}', /offset 10: duplicate label name "app"/],
      ['{}', /offset 0: a stream needs at least one label/],
      ['{1app="x"}', /offset 1: expected a label name/],
      ['{app=api}', /offset 5: expected a quoted string/],
      ['{app="unterminated}', /unterminated string/],
      ['{app="x"} trailing', /unexpected text after "\}"/],
      ['{app="\\q"}', /unknown escape sequence/],
      ['{""="x"}', /empty label name/],
    ];
    for (const [text, pattern] of cases) {
      const result = parseStreamSelector(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.message, text).toMatch(pattern);
    }
  });
});

function realisticPush(): Record<string, unknown> {
  return {
    streams: [
      {
        labels: '{app="checkout", env="prod", level="warn"}',
        entries: [
          { timestamp: { seconds: SECONDS, nanos: 123456789 }, line: 'first line' },
          {
            timestamp: { seconds: SECONDS + 1, nanos: 0 },
            line: 'level=error msg="db down"',
            structuredMetadata: [
              { name: 'trace.id', value: 'abc123' },
              { name: 'level', value: 'ERROR' },
            ],
          },
        ],
      },
      {
        labels: '{app="cart", detected_level="Info"}',
        entries: [{ timestamp: { seconds: SECONDS, nanos: 5 }, line: 'ERROR but a level label wins over the line' }],
      },
      {
        labels: '{app="batch", severity="loud"}',
        entries: [{ timestamp: { seconds: SECONDS, nanos: 0 }, line: '' }],
      },
      {
        labels: '{app="broken" env="x"}',
        entries: [
          { timestamp: { seconds: SECONDS, nanos: 0 }, line: 'a' },
          { timestamp: { seconds: SECONDS, nanos: 0 }, line: 'b' },
        ],
      },
    ],
  };
}

const sec = (s: number, n = 0) => BigInt(s) * 1_000_000_000n + BigInt(n);

describe('decodeLokiPush protobuf', () => {
  it('decodes a snappy PushRequest encoded by protobufjs', () => {
    const body = snappyCompress(pbEncode(PushRequest, realisticPush()));
    const result = decodeLokiPush(body, PROTO, { nowMs: NOW_MS });
    expect(result.records).toEqual([
      { timestampNs: sec(SECONDS, 123456789), message: 'first line', level: 'warn', tags: { app: 'checkout', env: 'prod' } },
      {
        // Metadata repeating the stream's `level` does not replace it: Loki shows it as `level_extracted`.
        timestampNs: sec(SECONDS + 1),
        message: 'level=error msg="db down"',
        level: 'warn',
        tags: { app: 'checkout', env: 'prod', trace_id: 'abc123', level_extracted: 'ERROR' },
      },
      { timestampNs: sec(SECONDS, 5), message: 'ERROR but a level label wins over the line', level: 'info', tags: { app: 'cart' } },
      { timestampNs: sec(SECONDS), message: '', level: 'unknown', tags: { app: 'batch', severity: 'loud', detected_level: 'loud' } },
    ]);
    expect(result.rejected).toBe(2);
    expect(result.errors).toEqual([
      'stream 3 labels "{app=\\"broken\\" env=\\"x\\"}": parse error at offset 14: expected "," or "}" after label value',
    ]);
  });

  it('treats a missing Content-Type as protobuf, as Loki does', () => {
    const body = snappyCompress(pbEncode(PushRequest, realisticPush()));
    expect(decodeLokiPush(body, undefined, { nowMs: NOW_MS }).records).toHaveLength(4);
  });

  it('rejects entries with future timestamps, over-long lines or too many tags', () => {
    const body = snappyCompress(
      pbEncode(PushRequest, {
        streams: [
          {
            labels: '{app="x"}',
            entries: [
              { timestamp: { seconds: SECONDS, nanos: 0 }, line: 'ok' },
              { timestamp: { seconds: SECONDS + 3600, nanos: 0 }, line: 'future' },
              { timestamp: { seconds: SECONDS, nanos: 0 }, line: 'y'.repeat(300_000) },
              {
                timestamp: { seconds: SECONDS, nanos: 0 },
                line: 'tags',
                structuredMetadata: Array.from({ length: 129 }, (_, i) => ({ name: `m${i}`, value: 'v' })),
              },
            ],
          },
        ],
      }),
    );
    const result = decodeLokiPush(body, PROTO, { nowMs: NOW_MS });
    expect(result.records.map((r) => r.message)).toEqual(['ok']);
    expect(result.rejected).toBe(3);
    expect(result.errors).toEqual([
      'stream 0 {app="x"} entry 1: timestamp 2024-05-01T12:59:00.000Z is too new: 3540s in the future, over the allowed skew of 600s',
      'stream 0 {app="x"} entry 2: log line of 300000 bytes exceeds the limit of 262144 bytes',
      'stream 0 {app="x"} entry 3: 129 attributes, over the limit of 128',
    ]);
    expect(result.discarded).toEqual({ too_far_in_future: 1, line_too_long: 1, max_line_attributes: 1 });
  });

  it('rejects entries whose timestamps are out of any range on their own, without throwing', () => {
    const body = snappyCompress(
      pbEncode(PushRequest, {
        streams: [
          {
            labels: '{app="x"}',
            entries: [
              { timestamp: { seconds: SECONDS, nanos: 0 }, line: 'ok' },
              // 9e12 s is past what a Date can hold (8.64e12 s): formatting it used to throw
              { timestamp: { seconds: 9e12, nanos: 0 }, line: 'beyond dates' },
              { timestamp: { seconds: -5, nanos: 0 }, line: 'negative' },
              { timestamp: { seconds: SECONDS - 8 * 86_400, nanos: 0 }, line: 'old' },
            ],
          },
        ],
      }),
    );
    const result = decodeLokiPush(body, PROTO, { nowMs: NOW_MS, limits: { maxSampleAgeMs: 7 * 86_400_000 } });
    expect(result.records.map((r) => r.message)).toEqual(['ok']);
    expect(result.discarded).toEqual({ invalid_timestamp: 2, too_old: 1 });
    expect(result.errors).toEqual([
      'stream 0 {app="x"} entry 1: timestamp 9000000000000000000000 ns is beyond the range of dates (8640000000000000 ms)',
      'stream 0 {app="x"} entry 2: invalid timestamp (seconds=-5, nanos=0)',
      'stream 0 {app="x"} entry 3: timestamp 2024-04-23T11:59:00.000Z is too old: the oldest accepted is 2024-04-24T12:00:00.000Z (7 days before now)',
    ]);
  });

  it('throws BAD_REQUEST for an unsnappied or truncated body', () => {
    const raw = pbEncode(PushRequest, realisticPush());
    expect(() => decodeLokiPush(raw, PROTO, { nowMs: NOW_MS })).toThrow(/^invalid Loki push body: snappy: /);
    try {
      decodeLokiPush(snappyCompress(raw.subarray(0, 30)), PROTO, { nowMs: NOW_MS });
      throw new Error('expected failure');
    } catch (err) {
      expect(err).toBeInstanceOf(IngestError);
      expect((err as Error).message).toMatch(/^invalid Loki PushRequest protobuf: protobuf: /);
    }
  });
});

describe('decodeLokiPush JSON', () => {
  const json = {
    streams: [
      {
        stream: { app: 'checkout', 'k8s.pod': 'p1' },
        values: [
          ['1714564740123456789', 'plain line'],
          ['1714564741000000000', 'with metadata', { trace_id: 't1', detected_level: 'warning' }],
        ],
      },
      { stream: { app: 'empty' }, values: [] },
    ],
  };

  it('decodes streams, values and structured metadata', () => {
    const result = decodeLokiPush(new TextEncoder().encode(JSON.stringify(json)), 'application/json', { nowMs: NOW_MS });
    expect(result.rejected).toBe(0);
    expect(result.records).toEqual([
      { timestampNs: 1714564740123456789n, message: 'plain line', level: 'unknown', tags: { app: 'checkout', k8s_pod: 'p1', detected_level: 'unknown' } },
      {
        timestampNs: 1714564741000000000n,
        message: 'with metadata',
        level: 'warn',
        tags: { app: 'checkout', k8s_pod: 'p1', trace_id: 't1' },
      },
    ]);
  });

  it("leaves lines that name no level without detected_level or level when the org's discoverLogLevels is off", () => {
    const body = {
      streams: [
        {
          stream: { app: 'checkout', env: 'prod' },
          values: [
            ['1714564740000000000', 'level=error payment failed'],
            ['1714564741000000000', 'level=warn slow', { env: 'canary', trace_id: 't1' }],
            ['1714564742000000000', 'named', { level: 'error' }],
          ],
        },
      ],
    };
    const text = new TextEncoder().encode(JSON.stringify(body));
    const off = decodeLokiPush(text, 'application/json', { nowMs: NOW_MS, limits: { discoverLogLevels: 0 } });
    expect(off.records.map((r) => [r.level, r.tags])).toEqual([
      ['', { app: 'checkout', env: 'prod' }],
      // Metadata repeating a stream label keeps its value under `<name>_extracted`; the stream label stays.
      ['', { app: 'checkout', env: 'prod', env_extracted: 'canary', trace_id: 't1' }],
      // A level the line names is still its level.
      ['error', { app: 'checkout', env: 'prod' }],
    ]);
    const on = decodeLokiPush(text, 'application/json', { nowMs: NOW_MS });
    expect(on.records.map((r) => [r.level, r.tags.detected_level])).toEqual([
      ['error', 'error'],
      ['warn', 'warn'],
      ['error', undefined],
    ]);
  });

  it('decodes gzip JSON bodies', () => {
    const body = decodeContentEncoding(gzipSync(JSON.stringify(json)), 'gzip', 1 << 20);
    expect(decodeLokiPush(body, 'application/json', { nowMs: NOW_MS }).records).toHaveLength(2);
  });

  it('names the field at fault in malformed JSON', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ streams: [{ stream: { a: 'b' }, values: [['1', 5]] }] }, /streams\[0\]\.values\[0\]\[1\]: expected the log line as a string/],
      [{ streams: [{ stream: { a: 1 }, values: [] }] }, /streams\[0\]\.stream\.a: expected a string label value/],
      [{ streams: [{ stream: { a: 'b' }, values: [['1', 'x', { k: 2 }]] }] }, /values\[0\]\[2\]\.k: expected a string metadata value/],
      [{ streams: [{ stream: { a: 'b' }, values: [['1']] }] }, /values\[0\]: expected \[timestamp, line\]/],
      [{ streams: {} }, /streams: expected an array/],
    ];
    for (const [body, pattern] of cases) {
      expect(() => decodeLokiPush(new TextEncoder().encode(JSON.stringify(body)), 'application/json', { nowMs: NOW_MS })).toThrow(
        pattern,
      );
    }
  });

  it('rejects an entry whose timestamp is not a string of nanoseconds on its own, keeping the rest', () => {
    const ok = String(BigInt(NOW_MS) * 1_000_000n);
    const values = [[ok, 'kept'], [1714564740123456789, 'number'], ['-1', 'negative'], ['1.5e18', 'exponent'], ['NaN', 'nan'], [null, 'null'], ['9'.repeat(30), 'huge']];
    const body = { streams: [{ stream: { app: 'x' }, values }] };
    const result = decodeLokiPush(new TextEncoder().encode(JSON.stringify(body)), 'application/json', { nowMs: NOW_MS });
    expect(result.records.map((r) => r.message)).toEqual(['kept']);
    expect(result.rejected).toBe(6);
    expect(result.discarded).toEqual({ invalid_timestamp: 6 });
    expect(result.errors[0]).toBe('stream 0 {app="x"} entry 1: timestamp 1714564740123456800 is not a string of Unix epoch nanoseconds');
    expect(result.errors[2]).toBe('stream 0 {app="x"} entry 3: timestamp "1.5e18" is not a string of Unix epoch nanoseconds');
    expect(result.errors[5]).toMatch(/^stream 0 \{app="x"\} entry 6: timestamp 9{30} ns is beyond the range of dates/);
  });

  it('rejects a stream with an empty label name or no labels, with all its entries', () => {
    const body = {
      streams: [
        { stream: { '': 'x' }, values: [['1', 'a'], ['2', 'b']] },
        { values: [['3', 'c']] },
        { stream: { ok: 'yes' }, values: [['4', 'd']] },
      ],
    };
    const result = decodeLokiPush(new TextEncoder().encode(JSON.stringify(body)), 'application/json', { nowMs: NOW_MS });
    expect(result.records.map((r) => r.message)).toEqual(['d']);
    expect(result.rejected).toBe(3);
    expect(result.errors).toEqual(['stream 0 {="x"}: empty label name', 'stream 1 {}: a stream needs at least one label']);
  });
});
