import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/index.js';
import { push, rejectedCount, storedLines, storedSamples } from '../support/ingest.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const ns = (ms: number): string => String(BigInt(ms) * 1_000_000n);
const label = (name: string, value: string) => ({ name, value });

/**
 * Per-org limits in the style of Prometheus and Loki: a series or entry that breaks a
 * per-record limit is rejected on its own with a 400 naming the limit and the first offender,
 * the rest of the batch is stored and queryable, and each rejection is counted by reason.
 */
describe('ingest limits per org', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      SVC_MAX_LABELS_PER_SERIES: '4',
      SVC_MAX_LABELS_PER_STREAM: '3',
      SVC_MAX_LABEL_NAME_LENGTH: '20',
      SVC_MAX_LABEL_VALUE_LENGTH: '16',
      SVC_MAX_LINE_BYTES: '1KiB',
      SVC_MAX_LINE_ATTRIBUTES: '2',
      SVC_MAX_LINE_ATTRIBUTES_BYTES: '1KiB',
      SVC_MAX_STREAMS_PER_ORG: '3',
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('remote write: rejects series over the label limits on their own, 400 naming the limit and the series', async () => {
    const sample = [{ value: 1, timestamp: NOW }];
    const body = encodeRemoteWriteBody({
      timeseries: [
        { labels: [label('__name__', 'lim_ok'), label('job', 'a')], samples: sample },
        { labels: [label('__name__', 'lim_many'), label('a', '1'), label('b', '2'), label('c', '3'), label('d', '4')], samples: sample },
        { labels: [label('__name__', 'lim_value'), label('pod', 'p'.repeat(17))], samples: sample },
        { labels: [label('__name__', 'lim_name'), label('n'.repeat(21), 'x')], samples: sample },
        { labels: [label('__name__', 'lim_ok'), label('job', 'b')], samples: sample },
      ],
    });
    const before = await rejectedCount(srv, 'metrics', 'max_label_names_per_series');
    const res = await push(srv, '/api/v1/write', body, 'application/x-protobuf');
    expect(res.status).toBe(400);
    const { code, message } = (await res.json()) as { code: string; message: string };
    expect(code).toBe('BAD_REQUEST');
    expect(message).toBe(
      '3 of 5 samples rejected (' +
        'max_label_names_per_series (SVC_MAX_LABELS_PER_SERIES=4): 1, ' +
        'label_value_too_long (SVC_MAX_LABEL_VALUE_LENGTH=16): 1, ' +
        'label_name_too_long (SVC_MAX_LABEL_NAME_LENGTH=20): 1; ' +
        'series {__name__="lim_many", a="1", b="2", c="3", d="4"}: 5 labels, over the limit of 4; ' +
        'series {__name__="lim_value", pod="ppppppppppppppppp"}: value of label "pod" is 17 characters long, over the limit of 16; ' +
        `series {__name__="lim_name", ${'n'.repeat(21)}="x"}: label name "${'n'.repeat(21)}" is longer than the limit of 20 characters)`,
    );
    expect(await storedSamples(srv, 'lim_ok', NOW)).toBe(2);
    expect(await storedSamples(srv, 'lim_many', NOW)).toBe(0);
    expect((await rejectedCount(srv, 'metrics', 'max_label_names_per_series')) - before).toBe(1);
    expect(await rejectedCount(srv, 'metrics', 'label_value_too_long')).toBeGreaterThanOrEqual(1);
  });

  it('Loki push: rejects streams and entries over the limits on their own, 400 naming them', async () => {
    const body = {
      streams: [
        { stream: { service_name: 'lim-loki', app: 'a', env: 'e', job: 'j' }, values: [[ns(NOW), 'too many stream labels']] },
        {
          stream: { service_name: 'lim-loki' },
          values: [
            [ns(NOW - 2000), 'kept 1'],
            [ns(NOW - 1000), 'x'.repeat(1025)],
            [ns(NOW - 500), 'three attributes', { a: '1', b: '2', c: '3' }],
            [ns(NOW - 400), 'big attributes', { trace: 'y'.repeat(1100) }],
            [ns(NOW), 'kept 2', { trace_id: 'abc' }],
          ],
        },
      ],
    };
    const res = await push(srv, '/loki/api/v1/push', JSON.stringify(body), 'application/json');
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toBe(
      '4 of 6 entries rejected (' +
        'max_label_names_per_stream (SVC_MAX_LABELS_PER_STREAM=3): 1, line_too_long (SVC_MAX_LINE_BYTES=1024): 1, ' +
        'max_line_attributes (SVC_MAX_LINE_ATTRIBUTES=2): 1, line_attributes_too_large (SVC_MAX_LINE_ATTRIBUTES_BYTES=1024): 1; ' +
        'stream 0 {service_name="lim-loki", app="a", env="e", job="j"}: 4 stream labels, over the limit of 3; ' +
        'stream 1 {service_name="lim-loki"} entry 1: log line of 1025 bytes exceeds the limit of 1024 bytes; ' +
        'stream 1 {service_name="lim-loki"} entry 2: 3 attributes, over the limit of 2; ' +
        'stream 1 {service_name="lim-loki"} entry 3: attributes of 1105 bytes exceed the limit of 1024 bytes)',
    );
    expect(await storedLines(srv, '{service_name="lim-loki"}', NOW - 60_000, NOW + 60_000)).toEqual(['kept 1', 'kept 2']);
    expect(await rejectedCount(srv, 'logs', 'line_too_long')).toBe(1);
  });

  it('refuses lines of new streams beyond the active stream limit, keeps those of existing streams', async () => {
    // lim-loki is the org's first stream; two more fit, the fourth and fifth do not.
    const streams = ['s2', 's3', 's4', 's5'].map((name) => ({ stream: { service_name: `lim-${name}` }, values: [[ns(NOW), `line of ${name}`]] }));
    streams.push({ stream: { service_name: 'lim-loki' }, values: [[ns(NOW + 1), 'existing stream']] });
    const res = await push(srv, '/loki/api/v1/push', JSON.stringify({ streams }), 'application/json');
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toBe(
      '2 of 5 entries rejected (stream_limit (SVC_MAX_STREAMS_PER_ORG=3): 2; 2 new stream(s) refused, the first {service_name="lim-s4"}: ' +
        'the org is at its limit of 3 active streams (SVC_MAX_STREAMS_PER_ORG))',
    );
    expect(await storedLines(srv, '{service_name=~"lim-s.*"}', NOW - 60_000, NOW + 60_000)).toEqual(['line of s2', 'line of s3']);
    expect(await storedLines(srv, '{service_name="lim-loki"}', NOW - 60_000, NOW + 60_000)).toEqual(['kept 1', 'kept 2', 'existing stream']);
    expect(await rejectedCount(srv, 'logs', 'stream_limit')).toBe(2);

    // OTLP answers the same refusal as a partial success.
    const otlp = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'lim-otlp' } }] },
          scopeLogs: [{ logRecords: [{ timeUnixNano: ns(NOW), body: { stringValue: 'refused' } }] }],
        },
      ],
    };
    const partial = await push(srv, '/v1/logs', JSON.stringify(otlp), 'application/json');
    expect(partial.status).toBe(200);
    expect(await partial.json()).toEqual({
      partialSuccess: {
        rejectedLogRecords: '1',
        errorMessage: expect.stringMatching(/^stream_limit \(SVC_MAX_STREAMS_PER_ORG=3\): 1; 1 new stream\(s\) refused, the first \{service_name="lim-otlp"\}/),
      },
    });
  });
});
