import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContentEncoding, decodeOtlpLogs, IngestError } from '../../../engine/ingest/index.js';
import type { DecodeResult, LogEntry } from '../../../engine/ingest/index.js';
import { ProtoWriter } from '../../../engine/ingest/encode/protoWriter.js';
import { ExportLogsServiceRequest, pbEncode } from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const T1 = '1714564800123456789'; // 2024-05-01T12:00:00.123456789Z
const T2 = '1714564799000000001';
const PROTO = 'application/x-protobuf';

const str = (stringValue: string) => ({ stringValue });

/** A request as an OTel collector would send it: two resources, scopes, varied records. */
function realisticRequest(): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: str('checkout') },
            { key: 'service.namespace', value: str('shop') },
            { key: 'k8s.pod.name', value: str('checkout-7d9f') },
            { key: 'host.cpu.count', value: { intValue: '8' } },
            { key: 'deployment.canary', value: { boolValue: true } },
            { key: 'region', value: str('eu-west-1') },
          ],
        },
        scopeLogs: [
          {
            scope: {
              name: 'io.opentelemetry.logback',
              version: '1.2.3',
              attributes: [{ key: 'scope.attr', value: str('s') }],
            },
            logRecords: [
              {
                timeUnixNano: T1,
                observedTimeUnixNano: T2,
                severityNumber: 17,
                severityText: 'ERROR',
                body: str('payment failed: card declined'),
                attributes: [
                  { key: 'http.request.method', value: str('POST') },
                  { key: 'http.response.status_code', value: { intValue: '402' } },
                  { key: 'retry.ratio', value: { doubleValue: 0.25 } },
                  { key: 'region', value: str('us-east-1') },
                  {
                    key: 'user',
                    value: {
                      kvlistValue: {
                        values: [
                          { key: 'id', value: str('u-42') },
                          { key: 'geo', value: { kvlistValue: { values: [{ key: 'country', value: str('FR') }] } } },
                        ],
                      },
                    },
                  },
                  {
                    key: 'items',
                    value: { arrayValue: { values: [str('a'), { intValue: '2' }, { boolValue: false }] } },
                  },
                  { key: 'raw', value: { bytesValue: Buffer.from([1, 2, 3, 250]) } },
                ],
                traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'),
                spanId: Buffer.from('eee19b7ec3c1b174', 'hex'),
                flags: 1,
                eventName: 'payment.failure',
              },
              {
                timeUnixNano: '0',
                observedTimeUnixNano: T2,
                severityText: 'Warning',
                body: {
                  kvlistValue: {
                    values: [
                      { key: 'msg', value: str('slow "db"') },
                      { key: 'ms', value: { doubleValue: 1500.5 } },
                      { key: 'tags', value: { arrayValue: { values: [str('x')] } } },
                    ],
                  },
                },
              },
              { timeUnixNano: T1, severityNumber: 6, body: { intValue: '12345678901234567' } },
              { timeUnixNano: T1, severityNumber: 30, severityText: 'chatty' },
            ],
          },
        ],
      },
      {
        resource: { attributes: [{ key: 'service.name', value: str('cart') }] },
        scopeLogs: [{ logRecords: [{ timeUnixNano: T2, severityText: 'crit', body: str('disk full') }] }],
      },
    ],
  };
}

function expectRealistic(result: DecodeResult<LogEntry>): void {
  expect(result.rejected).toBe(0);
  expect(result.errors).toEqual([]);
  expect(result.records).toHaveLength(5);
  const [a, b, c, d, e] = result.records;
  expect(a).toEqual({
    timestampNs: BigInt(T1),
    message: 'payment failed: card declined',
    level: 'error',
    tags: {
      service_name: 'checkout',
      service_namespace: 'shop',
      k8s_pod_name: 'checkout-7d9f',
      host_cpu_count: '8',
      deployment_canary: 'true',
      region: 'us-east-1',
      scope_attr: 's',
      scope_name: 'io.opentelemetry.logback',
      scope_version: '1.2.3',
      http_request_method: 'POST',
      http_response_status_code: '402',
      retry_ratio: '0.25',
      user_id: 'u-42',
      user_geo_country: 'FR',
      items: '["a",2,false]',
      raw: 'AQID+g==',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      event_name: 'payment.failure',
    },
  });
  // observed time is used when timeUnixNano is 0; a map body is rendered as JSON
  expect(b.timestampNs).toBe(BigInt(T2));
  expect(b.level).toBe('warn');
  expect(JSON.parse(b.message)).toEqual({ msg: 'slow "db"', ms: 1500.5, tags: ['x'] });
  expect(b.tags.severity_text).toBeUndefined();
  // severity number ranges; an int body beyond 2^53 keeps every digit
  expect(c.level).toBe('debug');
  expect(c.message).toBe('12345678901234567');
  expect(c.tags.severity_number).toBeUndefined();
  // unknown text and out-of-range number: level unknown, both kept as tags
  expect(d.level).toBe('unknown');
  expect(d.message).toBe('');
  expect(d.tags.severity_text).toBe('chatty');
  expect(d.tags.severity_number).toBe('30');
  // second resource: its own tags only, critical -> fatal
  expect(e).toEqual({ timestampNs: BigInt(T2), message: 'disk full', level: 'fatal', tags: { service_name: 'cart' } });
}

function toOtlpJson(): string {
  const hex = (b64: Buffer) => b64.toString('hex');
  const req = realisticRequest() as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<Record<string, unknown>> }> }> };
  const rec = req.resourceLogs[0].scopeLogs[0].logRecords[0];
  rec.traceId = hex(rec.traceId as Buffer).toUpperCase();
  rec.spanId = hex(rec.spanId as Buffer);
  const attrs = rec.attributes as Array<{ key: string; value: Record<string, unknown> }>;
  const raw = attrs.find((a) => a.key === 'raw')!;
  raw.value = { bytesValue: (raw.value.bytesValue as Buffer).toString('base64') };
  return JSON.stringify(req);
}

describe('decodeOtlpLogs protobuf', () => {
  it('maps a realistic protobufjs-encoded request field by field', () => {
    const body = pbEncode(ExportLogsServiceRequest, realisticRequest(), false);
    expectRealistic(decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS }));
  });

  it('decodes a gzip body after decodeContentEncoding', () => {
    const body = gzipSync(pbEncode(ExportLogsServiceRequest, realisticRequest(), false));
    expectRealistic(decodeOtlpLogs(decodeContentEncoding(body, 'gzip', 1 << 20), PROTO, { nowMs: NOW_MS }));
  });

  it('sniffs the format when Content-Type is missing', () => {
    const body = pbEncode(ExportLogsServiceRequest, realisticRequest(), false);
    expectRealistic(decodeOtlpLogs(body, undefined, { nowMs: NOW_MS }));
    expectRealistic(decodeOtlpLogs(new TextEncoder().encode(toOtlpJson()), undefined, { nowMs: NOW_MS }));
  });

  it('uses the resource and scope even when they come after the records on the wire', () => {
    const w = new ProtoWriter();
    w.message(1, () => {
      w.message(2, () => {
        w.message(2, () => {
          w.tag(1, 1).fixed64(BigInt(T1));
          w.message(5, () => w.tag(1, 2).string('late context'));
        });
        w.message(1, () => w.stringField(1, 'late-scope'));
      });
      w.message(1, () => w.message(1, () => {
        w.stringField(1, 'service.name');
        w.message(2, () => w.tag(1, 2).string('svc'));
      }));
    });
    const result = decodeOtlpLogs(w.finish(), PROTO, { nowMs: NOW_MS });
    expect(result.records).toEqual([
      { timestampNs: BigInt(T1), message: 'late context', level: 'unknown', tags: { service_name: 'svc', scope_name: 'late-scope' } },
    ]);
  });

  it('keeps bodies with invalid UTF-8, replacing the bad bytes', () => {
    const w = new ProtoWriter();
    const bad = new Uint8Array([0x6f, 0x6b, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0xe2, 0x82]);
    w.message(1, () => w.message(2, () => w.message(2, () => {
      w.tag(1, 1).fixed64(BigInt(T1));
      w.message(5, () => w.tag(1, 2).bytes(bad));
      w.message(6, () => {
        w.tag(1, 2).bytes(new Uint8Array([0x6b, 0xff]));
        w.message(2, () => w.tag(1, 2).bytes(new Uint8Array([0xc0, 0x80])));
      });
    })));
    const result = decodeOtlpLogs(w.finish(), PROTO, { nowMs: NOW_MS });
    expect(result.records[0].message).toBe('ok\uFFFD\uFFFD \uFFFD(\uFFFD');
    expect(result.records[0].tags).toEqual({ 'k\uFFFD': '\uFFFD\uFFFD' });
  });

  it('defaults the timestamp to the receiver clock when both times are 0', () => {
    const body = pbEncode(ExportLogsServiceRequest, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: str('x') }] }] }] });
    expect(decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS }).records[0].timestampNs).toBe(BigInt(NOW_MS) * 1_000_000n);
  });

  it('treats an all-zero trace id as absent', () => {
    const body = pbEncode(ExportLogsServiceRequest, {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: T1, traceId: Buffer.alloc(16), spanId: Buffer.alloc(8) }] }] }],
    });
    expect(decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS }).records[0].tags).toEqual({});
  });
});

describe('decodeOtlpLogs JSON', () => {
  it('maps the OTLP/JSON encoding of the same request identically', () => {
    expectRealistic(decodeOtlpLogs(new TextEncoder().encode(toOtlpJson()), 'application/json; charset=utf-8', { nowMs: NOW_MS }));
  });

  it('accepts proto field names, enum names and numeric 64-bit values', () => {
    const body = JSON.stringify({
      resource_logs: [
        {
          scope_logs: [
            {
              log_records: [
                { time_unix_nano: 1714564800000000000, severity_number: 'SEVERITY_NUMBER_WARN2', body: { string_value: 'hi' } },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpLogs(new TextEncoder().encode(body), 'application/json', { nowMs: NOW_MS });
    expect(result.records).toEqual([{ timestampNs: 1714564800000000000n, message: 'hi', level: 'warn', tags: {} }]);
  });

  it('rejects a record whose time is not an unsigned 64-bit integer on its own, naming it', () => {
    // 'INFINITY' stands for the JSON number 1e400, which JSON.parse reads as Infinity.
    const times: unknown[] = ['soon', -1, 1.5, 'NaN', '18446744073709551616', 'INFINITY', '9000000000000000000000'];
    const logRecords = [{ body: { stringValue: 'kept' } }, ...times.map((t) => ({ timeUnixNano: t, body: { stringValue: 'bad' } }))];
    // An observed time that is never used (the record has its own) does not matter.
    logRecords.push({ timeUnixNano: String(BigInt(NOW_MS) * 1_000_000n), observedTimeUnixNano: 'later', body: { stringValue: 'kept too' } } as never);
    const text = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords }] }] }).replace('"INFINITY"', '1e400');
    const result = decodeOtlpLogs(new TextEncoder().encode(text), 'application/json', { nowMs: NOW_MS });
    expect(result.records.map((r) => r.message)).toEqual(['kept', 'kept too']);
    expect(result.rejected).toBe(times.length);
    expect(result.discarded).toEqual({ invalid_timestamp: times.length });
    expect(result.errors[0]).toBe(
      'log record resourceLogs[0].scopeLogs[0].logRecords[1]: timeUnixNano: expected an unsigned 64-bit integer of nanoseconds (decimal string), got string "soon"',
    );
    expect(result.errors[4]).toMatch(/logRecords\[5\]: timeUnixNano: .* got string "18446744073709551616"/);
  });

  it('names the offending field when a value has the wrong type', () => {
    const badHex = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ traceId: 'xyz' }] }] }] });
    expect(() => decodeOtlpLogs(new TextEncoder().encode(badHex), 'application/json', { nowMs: NOW_MS })).toThrow(
      /logRecords\[0\]\.traceId: expected a hex string/,
    );
    const oddHex = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ spanId: 'abc' }] }] }] });
    expect(() => decodeOtlpLogs(new TextEncoder().encode(oddHex), 'application/json', { nowMs: NOW_MS })).toThrow(
      /logRecords\[0\]\.spanId: expected a hex string of whole bytes/,
    );
  });

  it('rejects malformed JSON and non-object bodies', () => {
    for (const text of ['{"resourceLogs": [', '', '[1,2]', 'null']) {
      try {
        decodeOtlpLogs(new TextEncoder().encode(text), 'application/json', { nowMs: NOW_MS });
        throw new Error('expected failure');
      } catch (err) {
        expect(err).toBeInstanceOf(IngestError);
        expect((err as Error).message).toMatch(/^invalid OTLP\/JSON logs request: body/);
      }
    }
  });
});

describe('decodeOtlpLogs limits and errors', () => {
  function records(count: number, overrides: (i: number) => Record<string, unknown>): Uint8Array {
    const logRecords = Array.from({ length: count }, (_, i) => ({ timeUnixNano: T1, body: str(`line ${i}`), ...overrides(i) }));
    return pbEncode(ExportLogsServiceRequest, {
      resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: str('api') }] }, scopeLogs: [{ logRecords }] }],
    });
  }

  it('rejects only the records that break a limit, naming them', () => {
    const big = 'x'.repeat(300 * 1024);
    const future = String(BigInt(NOW_MS + 11 * 60 * 1000) * 1_000_000n);
    const manyAttrs = Array.from({ length: 129 }, (_, k) => ({ key: `a${k}`, value: str('v') }));
    const body = records(8, (i) =>
      i === 1
        ? { body: str(big) }
        : i === 2
          ? { timeUnixNano: future }
          : i === 3
            ? { attributes: manyAttrs }
            : i === 4
              ? { attributes: [{ key: 'k'.repeat(2000), value: str('v') }] }
              : i === 5
                ? { attributes: [{ key: 'k8s.pod.name', value: str('p'.repeat(2049)) }] }
                : i === 6
                  ? { attributes: [{ key: 'exception.stacktrace', value: str('at x\n'.repeat(2000)) }] }
                  : {},
    );
    const result = decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS });
    // A long attribute value is fine (line 6); a long stream label value is not (line 5).
    expect(result.records.map((r) => r.message)).toEqual(['line 0', 'line 6', 'line 7']);
    expect(result.rejected).toBe(5);
    expect(result.discarded).toEqual({ line_too_long: 1, too_far_in_future: 1, max_line_attributes: 1, label_name_too_long: 1, label_value_too_long: 1 });
    expect(result.errors[0]).toBe(
      'log record resourceLogs[0].scopeLogs[0].logRecords[1] (service_name="api"): log line of 307200 bytes exceeds the limit of 262144 bytes',
    );
    expect(result.errors[1]).toMatch(/logRecords\[2\].*is too new: 660s in the future, over the allowed skew of 600s/);
    expect(result.errors[2]).toMatch(/logRecords\[3\].*129 attributes, over the limit of 128/);
    expect(result.errors[3]).toMatch(/logRecords\[4\].*attribute name "kkkk.*\(2000 chars\) is longer than the limit of 1024/);
    expect(result.errors[4]).toMatch(/logRecords\[5\].*value of label "k8s_pod_name" is 2049 characters long, over the limit of 2048/);
  });

  it('accepts a line just under the limit and honours overridden limits', () => {
    const body = records(2, (i) => ({ body: str(i === 0 ? 'é'.repeat(131072) : 'short line') }));
    expect(decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS }).rejected).toBe(0);
    const strict = decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS, limits: { maxLogLineBytes: 100, maxLabelsPerSeries: 1 } });
    expect(strict.rejected).toBe(1);
    expect(strict.records.map((r) => r.message)).toEqual(['short line']);
  });

  it('throws a precise BAD_REQUEST for truncated and garbage protobuf', () => {
    const body = pbEncode(ExportLogsServiceRequest, realisticRequest(), false);
    for (const cut of [1, 2, 10, body.length - 1]) {
      try {
        decodeOtlpLogs(body.subarray(0, cut), PROTO, { nowMs: NOW_MS });
        throw new Error(`cut at ${cut} decoded`);
      } catch (err) {
        expect(err).toBeInstanceOf(IngestError);
        expect((err as IngestError).code).toBe('BAD_REQUEST');
        expect((err as Error).message).toMatch(/^invalid OTLP ExportLogsServiceRequest protobuf: protobuf: /);
      }
    }
    expect(() => decodeOtlpLogs(new TextEncoder().encode('hello, not protobuf'), PROTO, { nowMs: NOW_MS })).toThrow(IngestError);
  });

  it('rejects unsupported content types', () => {
    expect(() => decodeOtlpLogs(new Uint8Array(), 'text/plain', { nowMs: NOW_MS })).toThrow(/unsupported Content-Type "text\/plain"/);
  });

  it('decodes many records, keeping their order', () => {
    const body = records(5000, () => ({}));
    const result = decodeOtlpLogs(body, PROTO, { nowMs: NOW_MS });
    expect(result.records).toHaveLength(5000);
    expect(result.records[4999].message).toBe('line 4999');
    expect(result.records[4999].tags).toEqual({ service_name: 'api' });
  });
});
