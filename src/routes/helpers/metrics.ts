import type { LabelMatcher, Labels, Storage } from '../../../engine/index.js';
import type { RouteSpec } from '../../http/router.js';
import { listKeys, listValues, metricLabelScan, type LabelSetScan } from '../../catalog/labelListings.js';
import { DistinctStrings } from '../../catalog/listing.js';
import { MetadataCollector } from '../../catalog/metadata.js';
import { listingRoute, optionalString, requireString, type HelperScope } from './request.js';
import { parseSeriesSelector } from '../../catalog/selectors.js';

/**
 * Metric helper endpoints list what a PromQL selector can match: label names, the values of
 * one label, the labels of one metric, metric metadata, and the metrics carrying a label.
 * Each looks only at series with a sample in the window, and reads label sets, never samples.
 */

const METRIC_NAME = '__name__';

/** metricRoute builds one POST listing route scoped by a PromQL series selector. */
function metricRoute(storage: Storage, path: string, answer: (scope: HelperScope) => object): RouteSpec {
  return listingRoute(path, parseSeriesSelector, answer, (org) => storage.refreshListings(org));
}

/** metricHelperRoutes builds the five metric listing routes over the org's series labels and metadata. */
export function metricHelperRoutes(storage: Storage): RouteSpec[] {
  const scanOf = (scope: HelperScope): LabelSetScan => metricLabelScan(storage, scope.org, scope.startMs, scope.endMs);

  return [
    // Label names as Prometheus' /api/v1/labels lists them, __name__ included.
    metricRoute(storage, '/api/v1/metrics/tags', (scope) => listKeys(scanOf(scope), scope.matchers, scope.limit)),
    // Values of one label; key "__name__" lists metric names.
    metricRoute(storage, '/api/v1/metrics/tagvalues', (scope) => {
      const key = requireString(scope.body, 'key', 'the label whose values to list');
      return listValues(scanOf(scope), scope.matchers, key, scope.limit);
    }),
    // Label names of one metric, without __name__ since the metric is given.
    metricRoute(storage, '/api/v1/metrics/labelkeys', (scope) => {
      const metric = requireString(scope.body, 'metric', 'the metric name whose label keys to list');
      return listKeys(scanOf(scope), [{ name: METRIC_NAME, type: '=', value: metric }, ...scope.matchers], scope.limit, METRIC_NAME);
    }),
    // Metadata of the metric families with series in the window; see MetadataCollector.
    metricRoute(storage, '/api/v1/metrics/metadata', (scope) => {
      const metric = optionalString(scope.body, 'metric');
      const entries = new MetadataCollector(storage.metricMetadata(scope.org), scope.limit, metric);
      scanOf(scope)(scope.matchers, (labels) => {
        const name = labels[METRIC_NAME];
        return name === undefined || entries.add(name);
      });
      return entries.listing();
    }),
    // Metrics carrying a label, optionally with one value of it.
    metricRoute(storage, '/api/v1/metrics/discover', (scope) => {
      const key = requireString(scope.body, 'key', 'the label the metrics must carry');
      const value = optionalString(scope.body, 'value');
      const names = new DistinctStrings(scope.limit);
      const carrying: LabelMatcher = value === undefined ? { name: key, type: '!=', value: '' } : { name: key, type: '=', value };
      scanOf(scope)([...scope.matchers, carrying], (labels) => {
        const name = labels[METRIC_NAME];
        return name === undefined || names.add(name);
      });
      return names.listing();
    }),
  ];
}
