import { labelsJson, labelsKey, parseAndCheckPromQL, type LabelMatcher, type Labels, type Storage } from '../../engine/index.js';
import { PromError, invalidParam, toPromError } from './promError.js';
import { MAX_TIME_MS, MIN_TIME_MS, type PromParams } from './params.js';
import { sortByLabelSets } from './render.js';

/**
 * The series, label-name and label-value listings. They read the catalog (series tables of
 * segments and heads), never samples, so they are cheap enough to serve without a query slot.
 * `partial` holds the warnings of a listing that could not read every holder of recent data
 * (partialListingWarnings), given as Prometheus gives a query's partial answer: `warnings`.
 */

/** LABEL_NAME is Prometheus' legacy label name syntax, which label/{name}/values requires. */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Listing {
  matcherSets: LabelMatcher[][];
  startMs: number;
  endMs: number;
  limit: number;
}

/** parseSelectors reads every `match[]` as a series selector. */
function parseSelectors(texts: readonly string[]): LabelMatcher[][] {
  return texts.map((text) => {
    let expr;
    try {
      expr = parseAndCheckPromQL(text);
    } catch (err) {
      throw invalidParam('match[]', toPromError(err, 'check').message);
    }
    if (expr.type !== 'VectorSelector') throw invalidParam('match[]', `${JSON.stringify(text)} is not a series selector such as up{job="api"}`);
    return expr.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
  });
}

function readListing(params: PromParams): Listing {
  const startMs = params.time('start', MIN_TIME_MS);
  const endMs = params.time('end', MAX_TIME_MS);
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  return { matcherSets: parseSelectors(params.all('match[]')), startMs, endMs, limit: params.limit() };
}

/** truncated applies `limit`, with the warning Prometheus gives when it cut the answer. */
function truncated<T>(items: T[], limit: number): { items: T[]; warnings: string[] } {
  if (limit <= 0 || items.length <= limit) return { items, warnings: [] };
  return { items: items.slice(0, limit), warnings: ['results truncated due to limit'] };
}

function body(dataJson: string, warnings: string[]): string {
  const extra = warnings.length > 0 ? `,"warnings":${JSON.stringify(warnings)}` : '';
  return `{"status":"success","data":${dataJson}${extra}}`;
}

/** listSeries serves /series: the distinct label sets matching any `match[]`, sorted as Prometheus sorts them. */
export function listSeries(storage: Storage, org: string, params: PromParams, partial: readonly string[] = []): string {
  const listing = readListing(params);
  if (listing.matcherSets.length === 0) throw new PromError('bad_data', 'no match[] parameter provided');
  const found = new Map<string, Labels>();
  const view = storage.metrics(org);
  for (const matchers of listing.matcherSets) {
    view.forEachLabelSet(matchers, listing.startMs, listing.endMs, (labels) => {
      const key = labelsKey(labels);
      if (!found.has(key)) found.set(key, labels);
    });
  }
  const sorted = sortByLabelSets([...found.values()], (labels) => labels);
  const { items, warnings } = truncated(sorted, listing.limit);
  return body(`[${items.map(labelsJson).join(',')}]`, [...warnings, ...partial]);
}

/** listLabelNames serves /labels: label names of the series in range, of those matching `match[]` when given. */
export function listLabelNames(storage: Storage, org: string, params: PromParams, partial: readonly string[] = []): string {
  const listing = readListing(params);
  const view = storage.metrics(org);
  const sets = listing.matcherSets.length > 0 ? listing.matcherSets : [[]];
  const names = new Set<string>();
  for (const matchers of sets) for (const name of view.labelNames(matchers, listing.startMs, listing.endMs)) names.add(name);
  const { items, warnings } = truncated([...names].sort(), listing.limit);
  return body(JSON.stringify(items), [...warnings, ...partial]);
}

/** listLabelValues serves /label/{name}/values. */
export function listLabelValues(storage: Storage, org: string, name: string, params: PromParams, partial: readonly string[] = []): string {
  if (!LABEL_NAME.test(name)) throw new PromError('bad_data', `invalid label name: ${JSON.stringify(name)}`);
  const listing = readListing(params);
  const view = storage.metrics(org);
  const sets = listing.matcherSets.length > 0 ? listing.matcherSets : [[]];
  const values = new Set<string>();
  for (const matchers of sets) for (const value of view.labelValues(name, matchers, listing.startMs, listing.endMs)) values.add(value);
  const { items, warnings } = truncated([...values].sort(), listing.limit);
  return body(JSON.stringify(items), [...warnings, ...partial]);
}

/**
 * listMetadata serves /metadata: what remote write and OTLP said about each metric family
 * (type, help, unit), keyed by family name, optionally of one `metric`, at most `limit` families.
 */
export function listMetadata(storage: Storage, org: string, params: PromParams, partial: readonly string[] = []): string {
  const only = params.get('metric');
  const limit = params.limit();
  const stored = storage.metricMetadata(org);
  const names = [...stored.keys()].filter((name) => only === undefined || only === '' || name === only).sort();
  const data: Record<string, Array<{ type: string; help: string; unit: string }>> = {};
  for (const name of limit > 0 ? names.slice(0, limit) : names) {
    const record = stored.get(name)!;
    data[name] = [{ type: record.type, help: record.help, unit: record.unit }];
  }
  return body(JSON.stringify(data), [...partial]);
}
