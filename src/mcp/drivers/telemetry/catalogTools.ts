import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngineError, type LabelMatcher, type Labels } from '../../../../engine/index.js';
import { listKeys, listLabelSets, listValues, logTagScan, metricLabelScan, type LabelSetScan } from '../../../catalog/labelListings.js';
import { DistinctStrings } from '../../../catalog/listing.js';
import { MetadataCollector } from '../../../catalog/metadata.js';
import { parseSeriesSelector, parseStreamSelector } from '../../../catalog/selectors.js';
import { listServices } from '../../../catalog/services.js';
import { ToolError, textResult, type JsonSchema, type ToolSpec } from '../../driver.js';
import { closestMatches } from '../../../suggest.js';
import { BudgetedLines, budgetOf, csvRow, formatLabelsShort } from '../../format.js';
import { describeExpressionError, type TelemetryAccess } from './access.js';
import { END, LIMIT, MAX_TOKENS, READ_ONLY, SIGNAL, START } from './schemaParts.js';

/**
 * Catalog tools tell an agent what exists before it writes a query: services, label keys and
 * values, series, metric names with their type, unit and help. They read label sets only,
 * never samples, so they are cheap on any window.
 */

const LISTING_OUTPUT: JsonSchema = {
  type: 'object',
  properties: { items: { type: 'array' }, total: { type: 'integer' }, truncated: { type: 'boolean' }, hint: { type: 'string' } },
  required: ['items', 'truncated'],
};

const MATCH = { type: 'string', description: 'Optional selector to narrow: {service_name="api"} (logs) or up{job="api"} (metrics).' } as const;

/** matchersOf parses an optional selector for the signal; errors point at the spot. */
function matchersOf(signal: 'logs' | 'metrics', match: unknown): LabelMatcher[] {
  if (typeof match !== 'string' || match.trim() === '') return [];
  try {
    return signal === 'logs' ? parseStreamSelector(match) : parseSeriesSelector(match);
  } catch (err) {
    if (err instanceof EngineError) throw new ToolError(describeExpressionError(match, err, signal === 'logs' ? 'logql' : 'promql'));
    throw err;
  }
}

interface Listed {
  text: string;
  items: unknown[];
  truncated: boolean;
}

/** listText renders a listing as lines under a heading, cut at the token budget. */
function listText(heading: string, lines: string[], items: unknown[], truncatedBefore: boolean, budget: number, narrow: string): Listed {
  const out = new BudgetedLines(budget);
  out.add(heading);
  let shown = 0;
  for (const line of lines) {
    if (!out.add(line)) break;
    shown++;
  }
  const truncated = truncatedBefore || shown < lines.length;
  let text = out.lines.join('\n');
  if (truncated) text += `\n[truncated at ${shown}: ${narrow}]`;
  return { text, items: items.slice(0, shown), truncated };
}

/** listingResult is a listing's answer: its text (with the hint, when there is one) and the same as structured content. */
function listingResult(out: Listed, total: number, hint?: string): CallToolResult {
  const structured: Record<string, unknown> = { items: out.items, total, truncated: out.truncated };
  if (hint) structured.hint = hint;
  return textResult(hint ? `${out.text}\n${hint}` : out.text, structured);
}

export function catalogTools(access: TelemetryAccess): ToolSpec[] {
  const storage = access.storage;
  const nsOf = (ms: number): bigint => BigInt(ms) * 1_000_000n;

  /** scanOf scans the label sets of one signal in the window, the whole last millisecond of logs included. */
  const scanOf = (org: string, signal: 'logs' | 'metrics', startMs: number, endMs: number): LabelSetScan =>
    signal === 'logs' ? logTagScan(storage, org, nsOf(startMs), nsOf(endMs) + 999_999n) : metricLabelScan(storage, org, startMs, endMs);

  /** metricNames lists the metric names with series in the window (up to 20,000), for suggesting the one meant. */
  const metricNames = (org: string, startMs: number, endMs: number): Set<string> => {
    const names = new Set<string>();
    storage.metricLabelSets(org).forEachLabelSet([], startMs, endMs, (labels) => {
      if (labels.__name__ !== undefined) names.add(labels.__name__);
      return names.size < 20_000;
    });
    return names;
  };

  return [
    {
      name: 'list_services',
      title: 'List services',
      description: 'Services with data in the window and which signals (logs, metrics) each has. Start here.',
      inputSchema: { type: 'object', properties: { start: START, end: END }, additionalProperties: false },
      outputSchema: LISTING_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const w = access.window(args);
        const listing = listServices(storage, ctx.orgId, w.startMs, w.endMs, 1000);
        const lines = listing.data.map((s) => `${s.name} (${s.signals.join(', ')})`);
        const out = listText(`${listing.data.length} services`, lines, listing.data, listing.truncated, budgetOf(undefined), 'use a shorter window');
        return listingResult(out, listing.data.length);
      },
    },
    {
      name: 'list_labels',
      title: 'List label keys or values',
      description:
        'Without label: the label (metrics) or tag (logs) keys. With label: its values, e.g. signal=logs label=level. Use before filtering on a value.',
      inputSchema: {
        type: 'object',
        properties: { signal: SIGNAL, label: { type: 'string', description: 'Key whose values to list; __name__ lists metric names.' }, match: MATCH, start: START, end: END, limit: LIMIT(200, 5000), maxTokens: MAX_TOKENS },
        required: ['signal'],
        additionalProperties: false,
      },
      outputSchema: LISTING_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const signal = args.signal as 'logs' | 'metrics';
        const w = access.window(args);
        const limit = (args.limit as number | undefined) ?? 200;
        const matchers = matchersOf(signal, args.match);
        const label = typeof args.label === 'string' && args.label !== '' ? args.label : undefined;
        const signalScan = scanOf(ctx.orgId, signal, w.startMs, w.endMs);
        const listing = label === undefined ? listKeys(signalScan, matchers, limit) : listValues(signalScan, matchers, label, limit);
        let hint: string | undefined;
        if (label !== undefined && listing.data.length === 0) {
          const keys = new DistinctStrings(5000);
          signalScan(matchers, (labels) => {
            for (const key in labels) keys.add(key);
            return true;
          });
          const near = closestMatches(label, keys.listing().data);
          hint = `no ${signal === 'logs' ? 'tag' : 'label'} "${label}" in this window${near.length > 0 ? `; closest keys: ${near.join(', ')}` : ''}`;
        }
        const heading = label === undefined ? `${listing.data.length} ${signal === 'logs' ? 'tag' : 'label'} keys` : `${listing.data.length} values of ${label}`;
        const out = listText(heading, listing.data, listing.data, listing.truncated, budgetOf(args.maxTokens), 'add match or raise limit');
        return listingResult(out, listing.data.length, hint);
      },
    },
    {
      name: 'list_series',
      title: 'List series or log streams',
      description: 'The label sets matching a selector: metric series, or log streams. Shows what a query will aggregate over.',
      inputSchema: {
        type: 'object',
        properties: { signal: SIGNAL, match: { ...MATCH, description: 'Selector, e.g. http_requests_total{service_name="api"}.' }, start: START, end: END, limit: LIMIT(100, 5000), maxTokens: MAX_TOKENS },
        required: ['signal', 'match'],
        additionalProperties: false,
      },
      outputSchema: LISTING_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const signal = args.signal as 'logs' | 'metrics';
        const w = access.window(args);
        const listing = listLabelSets(scanOf(ctx.orgId, signal, w.startMs, w.endMs), matchersOf(signal, args.match), (args.limit as number | undefined) ?? 100);
        const out = listText(`${listing.data.length} ${signal === 'logs' ? 'streams' : 'series'}`, listing.data.map(formatLabelsShort), listing.data, listing.truncated, budgetOf(args.maxTokens), 'narrow match');
        return listingResult(out, listing.data.length);
      },
    },
    {
      name: 'find_metrics',
      title: 'Find metrics',
      description:
        'Metric names with type, unit and help, filtered by a name substring and/or a label they carry (label, value). Example: search="latency" or label=service_name value=checkout.',
      inputSchema: {
        type: 'object',
        properties: {
          search: { type: 'string', description: 'Case-insensitive substring of the metric name.' },
          label: { type: 'string', description: 'Only metrics carrying this label.' },
          value: { type: 'string', description: 'With label: only this value.' },
          start: START,
          end: END,
          limit: LIMIT(100, 2000),
          maxTokens: MAX_TOKENS,
        },
        additionalProperties: false,
      },
      outputSchema: LISTING_OUTPUT,
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const w = access.window(args);
        const limit = (args.limit as number | undefined) ?? 100;
        const search = typeof args.search === 'string' ? args.search.toLowerCase() : '';
        const matchers: LabelMatcher[] = [];
        if (typeof args.label === 'string' && args.label !== '') {
          matchers.push(typeof args.value === 'string' ? { name: args.label, type: '=', value: args.value } : { name: args.label, type: '!=', value: '' });
        }
        const metadata = new MetadataCollector(storage.metricMetadata(ctx.orgId), limit, undefined);
        const names = new Set<string>();
        storage.metricLabelSets(ctx.orgId).forEachLabelSet(matchers, w.startMs, w.endMs, (labels) => {
          const name = labels.__name__;
          if (name === undefined || names.has(name) || (search !== '' && !name.toLowerCase().includes(search))) return true;
          names.add(name);
          return metadata.add(name);
        });
        const listing = metadata.listing();
        const lines = listing.data.map((m) => csvRow([m.metric, m.type, m.unit, m.help]));
        let hint: string | undefined;
        if (listing.data.length === 0 && search !== '') {
          const near = closestMatches(search, metricNames(ctx.orgId, w.startMs, w.endMs), 5);
          hint = near.length > 0 ? `no metric name contains "${search}"; closest: ${near.join(', ')}` : `no metric name contains "${search}"`;
        }
        const out = listText(`${listing.data.length} metrics\nmetric,type,unit,help`, lines, listing.data, listing.truncated, budgetOf(args.maxTokens), 'refine search or label');
        return listingResult(out, listing.data.length, hint);
      },
    },
    {
      name: 'metric_metadata',
      title: 'Describe a metric',
      description: 'One metric: type, unit, help, its label keys with value counts, and how many series it has in the window.',
      inputSchema: {
        type: 'object',
        properties: { metric: { type: 'string', description: 'Metric name, e.g. http_requests_total.' }, start: START, end: END },
        required: ['metric'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          metric: { type: 'string' },
          type: { type: 'string' },
          unit: { type: 'string' },
          help: { type: 'string' },
          series: { type: 'integer' },
          labels: { type: 'object', additionalProperties: { type: 'integer' } },
        },
        required: ['metric', 'series'],
      },
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const metric = args.metric as string;
        const w = access.window(args);
        const values = new Map<string, Set<string>>();
        let series = 0;
        storage.metricLabelSets(ctx.orgId).forEachLabelSet([{ name: '__name__', type: '=', value: metric }], w.startMs, w.endMs, (labels) => {
          series++;
          for (const key in labels) {
            if (key === '__name__') continue;
            let set = values.get(key);
            if (!set) values.set(key, (set = new Set()));
            if (set.size < 10_000) set.add(labels[key]);
          }
          return series < 100_000;
        });
        const collector = new MetadataCollector(storage.metricMetadata(ctx.orgId), 1, metric);
        collector.add(metric);
        const meta = collector.listing().data[0] ?? { metric, type: 'unknown', unit: '', help: '' };
        const labels = Object.fromEntries([...values].sort(([a], [b]) => a.localeCompare(b)).map(([k, set]) => [k, set.size]));
        const lines = [
          `${metric}: type ${meta.type}${meta.unit ? `, unit ${meta.unit}` : ''}, ${series} series in the window`,
          meta.help ? `help: ${meta.help}` : 'help: (none recorded)',
          `labels (distinct values): ${Object.entries(labels).map(([k, n]) => `${k}(${n})`).join(', ') || 'none'}`,
        ];
        if (series === 0) {
          const near = closestMatches(metric, metricNames(ctx.orgId, w.startMs, w.endMs), 5);
          if (near.length > 0) lines.push(`no series of ${metric} in this window; closest names: ${near.join(', ')}`);
        }
        return textResult(lines.join('\n'), { metric, type: meta.type, unit: meta.unit, help: meta.help, series, labels });
      },
    },
  ];
}
