import type { PrometheusClient } from '@prometheus-io/codemirror-promql';
import { call } from '../lib/api.js';

type Listing = { data: string[] };

/**
 * helperClient feeds PromQL completion from Sluice's metric helper endpoints: metric names,
 * a metric's label keys, a label's values and metric metadata.
 */
export function helperClient(): PrometheusClient {
  const list = (path: string, body: Record<string, unknown>): Promise<string[]> =>
    call<Listing>(path, { body: { limit: 2000, ...body } }).then(
      (l) => l.data,
      () => [],
    );
  return {
    labelNames: (metricName?: string) => (metricName ? list('/api/v1/metrics/labelkeys', { metric: metricName }) : list('/api/v1/metrics/tags', {})),
    labelValues: (labelName: string, metricName?: string) => list('/api/v1/metrics/tagvalues', metricName ? { key: labelName, match: metricName } : { key: labelName }),
    metricNames: () => list('/api/v1/metrics/tagvalues', { key: '__name__' }),
    metricMetadata: async () => {
      const out: Record<string, Array<{ type: string; help: string }>> = {};
      try {
        const answer = await call<{ data: Array<{ metric: string; type: string; help: string }> }>('/api/v1/metrics/metadata', { body: { limit: 2000 } });
        for (const m of answer.data) out[m.metric] = [{ type: m.type, help: m.help }];
      } catch {
        // Completion works without help texts.
      }
      return out;
    },
    series: async () => [],
    flags: async () => ({}),
  };
}
