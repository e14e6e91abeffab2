import { DrainMiner, levelFromLine, logqlQueryKind } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import { lokiParams, lokiRange, lokiStepMs, nsToMsFloor, requireQuery } from './lokiParams.js';
import { clientSignal, parseChecked, readLogRows, type LokiQueryDeps } from './lokiQuery.js';

/**
 * /patterns: the kinds of lines a selector holds, as Grafana's Logs Drilldown shows them. Loki
 * mines them continuously in a pattern ingester; Sluice mines the newest lines of the range on
 * request with the same Drain miner the tool gateway uses, so the answer costs one bounded log
 * read (MAX_PATTERN_LINES, under the org's line limit) and the miner's bounded clusters.
 * Templates are written in Loki's pattern syntax (`<_>` for a variable part), so each can be
 * pasted into a `| pattern` stage or a line filter.
 */

/** MAX_PATTERN_LINES is how many of the newest lines are mined. */
const MAX_PATTERN_LINES = 5000;

/** MAX_SAMPLES bounds the time buckets per pattern. */
const MAX_SAMPLES = 1000;

/** lokiTemplate writes a mined template in Loki's pattern syntax. */
function lokiTemplate(template: string): string {
  return template.replaceAll('<*>', '<_>');
}

/** patterns serves /patterns: each mined template, most frequent first, with its level and line counts per step. */
export async function patterns(ctx: RequestContext, org: string, deps: LokiQueryDeps): Promise<unknown> {
  const params = lokiParams(ctx);
  const q = requireQuery(params);
  const range = lokiRange(params);
  const expr = parseChecked(q, true);
  if (logqlQueryKind(expr) !== 'log') throw new ApiError('BAD_REQUEST', 'patterns need a log query such as {service_name="api"}, not a metric query');
  const stepMs = lokiStepMs(params, range);
  const startMs = nsToMsFloor(range.startNs);
  const endMs = nsToMsFloor(range.endNs);
  const count = Math.min(MAX_SAMPLES, Math.max(1, Math.ceil((endMs - startMs) / stepMs)));
  const limit = Math.min(MAX_PATTERN_LINES, deps.queryLimitsFor(org).maxLogLimit);
  const rows = await readLogRows(org, deps, q, expr, range, limit, 'backward', clientSignal(ctx));
  const miner = new DrainMiner({ timeBuckets: { startMs, endMs, count } });
  const levels = new Map<number, string>();
  // Oldest first, so templates form in the order the lines were written.
  for (let i = rows.length - 1; i >= 0; i--) {
    const line = rows[i].line ?? rows[i].tags.message ?? '';
    const id = miner.add(line, Number(rows[i].timestampNs / 1_000_000n));
    if (!levels.has(id)) levels.set(id, rows[i].tags.detected_level ?? rows[i].tags.level ?? levelFromLine(line));
  }
  const bucketMs = (endMs - startMs) / count;
  const data = miner
    .patterns()
    .filter((p) => p.overflow !== true)
    .map((p) => ({
      pattern: lokiTemplate(p.template),
      level: levels.get(p.id) ?? 'unknown',
      samples: (p.buckets ?? []).flatMap((n, i) => (n > 0 ? [[Math.floor((startMs + i * bucketMs) / 1000), n] as [number, number]] : [])),
    }));
  return { status: 'success', data };
}
