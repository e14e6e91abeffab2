import { formatGoFloat, labelsJson, walkPromQL, type LabelMatcher, type SeriesExemplars } from '../../engine/index.js';
import type { ExemplarReader } from '../exemplars/exemplarReader.js';
import { parseQueryParam } from './instantQuery.js';
import { invalidParam } from './promError.js';
import { MAX_TIME_MS, MIN_TIME_MS, type PromParams } from './params.js';

/**
 * /query_exemplars: the exemplars of the series every selector of `query` matches, within
 * [start, end], in Prometheus' shape: one entry per series with its labels and its exemplars
 * (labels, value as a string, timestamp in Unix seconds), oldest first. On a query process the
 * exemplars come from the ingesters; those that could not be asked are named in `warnings`, as
 * Prometheus reports a partial answer.
 */

/** selectorsOf collects the matchers of every series selector in a PromQL expression. */
function selectorsOf(params: PromParams): LabelMatcher[][] {
  const { expr } = parseQueryParam(params);
  const sets: LabelMatcher[][] = [];
  walkPromQL(expr, (node) => {
    if (node.type === 'VectorSelector') sets.push(node.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value })));
  });
  return sets;
}

function renderSeries(s: SeriesExemplars): string {
  const exemplars = s.exemplars.map((e) => `{"labels":${labelsJson(e.labels)},"value":"${formatGoFloat(e.value)}","timestamp":${e.timestampMs / 1000}}`);
  return `{"seriesLabels":${labelsJson(s.seriesLabels)},"exemplars":[${exemplars.join(',')}]}`;
}

/** queryExemplars answers /query_exemplars for one org. */
export async function queryExemplars(reader: ExemplarReader, org: string, params: PromParams): Promise<string> {
  const startMs = params.time('start', MIN_TIME_MS);
  const endMs = params.time('end', MAX_TIME_MS);
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  const found = await reader.select(org, selectorsOf(params), startMs, endMs);
  const warnings = found.unavailable.length > 0 ? `,"warnings":${JSON.stringify(found.unavailable.map((u) => `exemplars not read from ${u}`))}` : '';
  return `{"status":"success","data":[${found.series.map(renderSeries).join(',')}]${warnings}}`;
}
