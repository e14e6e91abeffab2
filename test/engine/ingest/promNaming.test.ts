import { describe, expect, it } from 'vitest';
import { formatGoFloat } from '../../../engine/common/goFloat.js';
import { prometheusLabelName, prometheusMetricName, prometheusUnit } from '../../../engine/ingest/promNaming.js';
import type { OtlpMetricKind } from '../../../engine/ingest/promNaming.js';

describe('prometheusMetricName', () => {
  const cases: Array<[string, string, OtlpMetricKind, string]> = [
    ['http.server.request.duration', 's', 'histogram', 'http_server_request_duration_seconds'],
    ['rpc.latency', 'ms', 'histogram', 'rpc_latency_milliseconds'],
    ['process.runtime.gc', 'ns', 'gauge', 'process_runtime_gc_nanoseconds'],
    ['system.memory.usage', 'By', 'gauge', 'system_memory_usage_bytes'],
    ['network.io', 'By/s', 'gauge', 'network_io_bytes_per_second'],
    ['disk.io', 'KiBy/min', 'gauge', 'disk_io_kibibytes_per_min'],
    ['api.calls', '{call}/s', 'monotonicCounter', 'api_calls_per_second_total'],
    ['http.server.requests', '{request}', 'monotonicCounter', 'http_server_requests_total'],
    ['requests', '1', 'monotonicCounter', 'requests_total'],
    ['cpu.utilization', '1', 'gauge', 'cpu_utilization_ratio'],
    ['error.ratio', '1', 'gauge', 'error_ratio'],
    ['queue.depth', '1', 'nonMonotonicCounter', 'queue_depth'],
    ['jobs_total', '', 'monotonicCounter', 'jobs_total'],
    ['total.jobs', '', 'monotonicCounter', 'jobs_total'],
    ['latency_seconds', 's', 'histogram', 'latency_seconds'],
    ['disk.usage', '%', 'gauge', 'disk_usage_percent'],
    ['temperature', 'Cel', 'gauge', 'temperature_celsius'],
    ['widgets.made', 'widgets', 'gauge', 'widgets_made'],
    ['gadgets.made', 'gizmo', 'gauge', 'gadgets_made_gizmo'],
    ['distance', 'm', 'gauge', 'distance_meters'],
    ['uptime', 'd', 'gauge', 'uptime_days'],
    ['1st.metric', '', 'gauge', '_1st_metric'],
    ['weird__name--x', '', 'gauge', 'weird_name_x'],
    ['ns:metric.rate', '', 'gauge', 'ns:metric_rate'],
    ['...', '', 'gauge', ''],
  ];
  for (const [name, unit, kind, expected] of cases) {
    it(`${name} [${unit}] as ${kind} -> ${expected || '(invalid)'}`, () => {
      expect(prometheusMetricName(name, unit, kind)).toBe(expected);
    });
  }
});

describe('prometheusUnit', () => {
  it('renders OTLP units as Prometheus unit words', () => {
    expect(prometheusUnit('s')).toBe('seconds');
    expect(prometheusUnit('By/s')).toBe('bytes_per_second');
    expect(prometheusUnit('{request}/s')).toBe('per_second');
    expect(prometheusUnit('1')).toBe('');
    expect(prometheusUnit('{packets}')).toBe('');
    expect(prometheusUnit('')).toBe('');
    expect(prometheusUnit('MiBy')).toBe('mebibytes');
  });
});

describe('prometheusLabelName', () => {
  it('sanitizes attribute keys', () => {
    expect(prometheusLabelName('http.request.method')).toBe('http_request_method');
    expect(prometheusLabelName('123abc')).toBe('key_123abc');
    expect(prometheusLabelName('__reserved__')).toBe('__reserved__');
    expect(prometheusLabelName('a..b__c')).toBe('a_b_c');
    expect(prometheusLabelName('_private')).toBe('_private');
    expect(prometheusLabelName('ça-va')).toBe('_a_va');
    expect(prometheusLabelName('...')).toBe('');
    expect(prometheusLabelName('')).toBe('');
  });
});

describe('formatGoFloat', () => {
  it("matches Go's FormatFloat(v, 'f', -1, 64)", () => {
    expect(formatGoFloat(0.005)).toBe('0.005');
    expect(formatGoFloat(1)).toBe('1');
    expect(formatGoFloat(2.5)).toBe('2.5');
    expect(formatGoFloat(1e-9)).toBe('0.000000001');
    expect(formatGoFloat(1.5e-7)).toBe('0.00000015');
    expect(formatGoFloat(1e21)).toBe('1000000000000000000000');
    expect(formatGoFloat(1.25e22)).toBe('12500000000000000000000');
    expect(formatGoFloat(-0.75)).toBe('-0.75');
    expect(formatGoFloat(Math.SQRT1_2)).toBe('0.7071067811865476');
    expect(formatGoFloat(Infinity)).toBe('+Inf');
    expect(formatGoFloat(-Infinity)).toBe('-Inf');
    expect(formatGoFloat(NaN)).toBe('NaN');
    expect(formatGoFloat(0)).toBe('0');
  });
});
