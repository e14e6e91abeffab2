import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLokiPushBody, encodeRemoteWriteBody } from '../../engine/index.js';
import {
  ExportLogsServiceRequest,
  ExportLogsServiceResponse,
  ExportMetricsServiceRequest,
  ExportMetricsServiceResponse,
  pbDecode,
  pbEncode,
} from '../engine/ingest/protoTypes.js';
import { push, rejectedCount, storedLines, storedSamples } from '../support/ingest.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const ns = (ms: number): string => String(BigInt(ms) * 1_000_000n);
const DAY = 86_400_000;
/** Past what a Date can hold (8.64e15 ms): formatting it in the rejection message used to throw. */
const BEYOND_DATES_MS = 9e15;

type PartialSuccess = { partialSuccess?: { rejectedLogRecords?: string; rejectedDataPoints?: string; errorMessage: string } };

/**
 * A sample or entry with a timestamp out of bounds (beyond the Date range, negative, malformed,
 * far in the future, older than the retention) is dropped on its own: the rest of its batch is
 * stored and can be queried, and the answer names the first rejected records (400 for remote
 * write and Loki push, OTLP partial success for OTLP). Before, such a batch was dropped whole
 * with a 500.
 */
describe('ingest of out-of-range timestamps', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_RETENTION_DAYS: '1' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('remote write: stores the valid samples and answers 400 naming the first rejected ones', async () => {
    const body = encodeRemoteWriteBody({
      timeseries: [
        {
          labels: [{ name: '__name__', value: 'ts_rw' }],
          samples: [
            { value: 1, timestamp: NOW - 60_000 },
            { value: 2, timestamp: BEYOND_DATES_MS },
            { value: 3, timestamp: NOW },
            { value: 4, timestamp: -BEYOND_DATES_MS },
            { value: 5, timestamp: 2 ** 62 },
            { value: 6, timestamp: NOW - 2 * DAY },
            { value: 7, timestamp: NOW + 3_600_000 },
          ],
        },
      ],
    });
    const before = await rejectedCount(srv, 'metrics', 'invalid_timestamp');
    const res = await push(srv, '/api/v1/write', body, 'application/x-protobuf');
    expect(res.status).toBe(400);
    const { code, message } = (await res.json()) as { code: string; message: string };
    expect(code).toBe('BAD_REQUEST');
    expect(message).toMatch(/^5 of 7 samples rejected \(invalid_timestamp: 3, too_old \(retention of 1 days.*\): 1, too_far_in_future: 1; /);
    expect(message).toContain('series {__name__="ts_rw"}: 3 samples rejected, the first because: timestamp 9000000000000000 ms is beyond the range of dates');
    expect(message).toMatch(/series \{__name__="ts_rw"\}: 1 sample rejected: timestamp \S+ is too old/);
    expect(await storedSamples(srv, 'ts_rw', NOW)).toBe(2);
    expect((await rejectedCount(srv, 'metrics', 'invalid_timestamp')) - before).toBe(3);
  });

  it('Loki push JSON: keeps the valid entries, rejects bad timestamps one by one with 400', async () => {
    const values = [
      [ns(NOW - 1000), 'kept 1'],
      ['9'.repeat(25), 'beyond dates'],
      ['-1', 'negative'],
      ['1.7e18', 'exponent'],
      [1714564740123456789, 'number'],
      [ns(NOW + 3_600_000), 'future'],
      [ns(NOW - 2 * DAY), 'old'],
      [ns(NOW), 'kept 2'],
    ];
    const res = await push(srv, '/loki/api/v1/push', JSON.stringify({ streams: [{ stream: { service_name: 'ts-loki-json' }, values }] }), 'application/json');
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/^6 of 8 entries rejected \(invalid_timestamp: 4, too_far_in_future: 1, too_old .*: 1; /);
    expect(message).toContain('stream 0 {service_name="ts-loki-json"} entry 1: timestamp 9999999999999999999999999 ns is beyond the range of dates');
    expect(await storedLines(srv, '{service_name="ts-loki-json"}', NOW - 60_000, NOW + 60_000)).toEqual(['kept 1', 'kept 2']);
  });

  it('Loki push protobuf: keeps the valid entries, rejects seconds past the Date range with 400', async () => {
    const body = encodeLokiPushBody({
      streams: [
        {
          labels: '{service_name="ts-loki-pb"}',
          entries: [
            { timestampNs: BigInt(NOW) * 1_000_000n, line: 'kept' },
            { timestampNs: 9_000_000_000_000n * 1_000_000_000n, line: 'beyond dates' },
            { timestampNs: BigInt(NOW + 3_600_000) * 1_000_000n, line: 'future' },
          ],
        },
      ],
    });
    const res = await push(srv, '/loki/api/v1/push', body, 'application/x-protobuf');
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/^2 of 3 entries rejected \(invalid_timestamp: 1, too_far_in_future: 1; stream 0 \{service_name="ts-loki-pb"\} entry 1: timestamp 9000000000000000000000 ns is beyond/);
    expect(await storedLines(srv, '{service_name="ts-loki-pb"}', NOW - 60_000, NOW + 60_000)).toEqual(['kept']);
  });

  it('OTLP logs JSON and protobuf: partial success naming the rejected records, the rest stored', async () => {
    const records = (service: string, times: unknown[]) => ({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
          scopeLogs: [{ logRecords: times.map((t, i) => ({ timeUnixNano: t, body: { stringValue: `line ${i}` } })) }],
        },
      ],
    });
    const jsonTimes = [ns(NOW), '9000000000000000000000', -1, 1.5, 'NaN', ns(NOW + 3_600_000), ns(NOW - 2 * DAY), ns(NOW + 1)];
    const res = await push(srv, '/v1/logs', JSON.stringify(records('ts-otlp-json', jsonTimes)), 'application/json');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as PartialSuccess;
    expect(answer.partialSuccess?.rejectedLogRecords).toBe('6');
    expect(answer.partialSuccess?.errorMessage).toMatch(/^invalid_timestamp: 4, too_far_in_future: 1, too_old .*: 1; log record resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[1\] \(service_name="ts-otlp-json"\): timeUnixNano: expected an unsigned 64-bit integer/);
    expect(await storedLines(srv, '{service_name="ts-otlp-json"}', NOW - 60_000, NOW + 60_000)).toEqual(['line 0', 'line 7']);

    const pbTimes = [ns(NOW), '18446744073709551615', ns(NOW - 2 * DAY)];
    const pb = await push(srv, '/v1/logs', pbEncode(ExportLogsServiceRequest, records('ts-otlp-pb', pbTimes)), 'application/x-protobuf');
    expect(pb.status).toBe(200);
    const pbAnswer = pbDecode(ExportLogsServiceResponse, new Uint8Array(await pb.arrayBuffer())) as PartialSuccess;
    expect(pbAnswer.partialSuccess?.rejectedLogRecords).toBe('2');
    expect(pbAnswer.partialSuccess?.errorMessage).toMatch(/logRecords\[1\] \(service_name="ts-otlp-pb"\): timestamp 2554-07-21T23:34:33\.709Z is too new/);
    expect(await storedLines(srv, '{service_name="ts-otlp-pb"}', NOW - 60_000, NOW + 60_000)).toEqual(['line 0']);
  });

  it('OTLP metrics JSON and protobuf: partial success naming the rejected points, the rest stored', async () => {
    const gauge = (name: string, times: unknown[]) => ({
      resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name, gauge: { dataPoints: times.map((t, i) => ({ timeUnixNano: t, asDouble: i })) } }] }] }],
    });
    const jsonTimes = [ns(NOW), '9000000000000000000000', -1, 'NaN', ns(NOW + 3_600_000), ns(NOW - 2 * DAY), ns(NOW - 1000)];
    const res = await push(srv, '/v1/metrics', JSON.stringify(gauge('ts_otlp_json', jsonTimes)), 'application/json');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as PartialSuccess;
    expect(answer.partialSuccess?.rejectedDataPoints).toBe('5');
    expect(answer.partialSuccess?.errorMessage).toMatch(/^invalid_timestamp: 3, too_far_in_future: 1, too_old .*: 1; metric ts_otlp_json\{\}: timeUnixNano: expected an unsigned 64-bit integer of nanoseconds \(decimal string\), got string "9000000000000000000000"/);
    expect(await storedSamples(srv, 'ts_otlp_json', NOW)).toBe(2);

    const pb = await push(srv, '/v1/metrics', pbEncode(ExportMetricsServiceRequest, gauge('ts_otlp_pb', [ns(NOW), '18446744073709551615'])), 'application/x-protobuf');
    expect(pb.status).toBe(200);
    const pbAnswer = pbDecode(ExportMetricsServiceResponse, new Uint8Array(await pb.arrayBuffer())) as PartialSuccess;
    expect(pbAnswer.partialSuccess?.rejectedDataPoints).toBe('1');
    expect(pbAnswer.partialSuccess?.errorMessage).toMatch(/^too_far_in_future: 1; metric ts_otlp_pb\{\}: timestamp 2554/);
    expect(await storedSamples(srv, 'ts_otlp_pb', NOW)).toBe(1);
  });

  it('follows an org\'s own retention for the oldest acceptable timestamp', async () => {
    await srv.service.store.updateOrgSettings(srv.orgId, { retentionDays: 3 });
    const body = encodeRemoteWriteBody({
      timeseries: [{ labels: [{ name: '__name__', value: 'ts_org_retention' }], samples: [{ value: 1, timestamp: NOW - 2 * DAY }, { value: 2, timestamp: NOW - 4 * DAY }] }],
    });
    let message = '';
    // The retention table follows the metadata store asynchronously.
    for (let i = 0; i < 50 && !message.includes('retention of 3 days'); i++) {
      const res = await push(srv, '/api/v1/write', body, 'application/x-protobuf');
      message = res.status === 400 ? ((await res.json()) as { message: string }).message : '';
      if (!message.includes('retention of 3 days')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(message).toMatch(/^1 of 2 samples rejected \(too_old \(retention of 3 days/);
    expect(await storedSamples(srv, 'ts_org_retention', NOW - 2 * DAY + 60_000)).toBe(1);
  });
});
