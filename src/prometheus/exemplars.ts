import { formatGoFloat, walkPromQL, type ExemplarStore, type LabelMatcher, type SeriesExemplars } from '../../engine/index.js';
import { parseQueryParam } from './instantQuery.js';
import { invalidParam } from './promError.js';
import { MAX_TIME_MS, MIN_TIME_MS, type PromParams } from './params.js';
import { renderLabels } from './render.js';

/**
 * /query_exemplars: the exemplars of the series every selector of `query` matches, within
 * [start, end], in Prometheus' shape: one entry per series with its labels and its exemplars
 * (labels, value as a string, timestamp in Unix seconds), oldest first.
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
  const exemplars = s.exemplars.map((e) => `{"labels":${renderLabels(e.labels)},"value":"${formatGoFloat(e.value)}","timestamp":${e.timestampMs / 1000}}`);
  return `{"seriesLabels":${renderLabels(s.seriesLabels)},"exemplars":[${exemplars.join(',')}]}`;
}

/** queryExemplars answers /query_exemplars for one org. */
export function queryExemplars(store: ExemplarStore, org: string, params: PromParams): string {
  const startMs = params.time('start', MIN_TIME_MS);
  const endMs = params.time('end', MAX_TIME_MS);
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  const found = store.select(org, selectorsOf(params), startMs, endMs);
  return `{"status":"success","data":[${found.map(renderSeries).join(',')}]}`;
}
