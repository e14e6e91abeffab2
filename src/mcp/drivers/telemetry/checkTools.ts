import { gatherLogShare, gatherMetricShare, logShareSize, shareSize } from '../../../../engine/index.js';
import { checkExpression, type QueryLanguage } from '../../../query/validation.js';
import { textResult, type ToolSpec } from '../../driver.js';
import { formatDuration, isoTime } from '../../format.js';
import type { TelemetryAccess } from './access.js';
import { outline } from './outline.js';
import { LOOKBACK_MS, countSeries, selectorsOf } from './selectors.js';
import { END, READ_ONLY, START } from './schemaParts.js';

const LANGUAGE = { type: 'string', enum: ['promql', 'logql'], description: 'Query language.' } as const;

/**
 * Tools that look at a query without running it: validate gives the parser's verdict and the
 * canonical form; explain adds what each selector matches now and how much stored data the
 * query would read, so an agent can narrow an expensive query before sending it.
 */
export function checkTools(access: TelemetryAccess): ToolSpec[] {
  return [
    {
      name: 'validate_query',
      title: 'Validate a query',
      description: 'Check PromQL or LogQL without running it: the value kind and canonical form, or the error with line:col.',
      inputSchema: { type: 'object', properties: { language: LANGUAGE, query: { type: 'string' } }, required: ['language', 'query'], additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: { valid: { type: 'boolean' }, kind: { type: 'string' }, canonical: { type: 'string' }, error: { type: 'object' } },
        required: ['valid'],
      },
      annotations: READ_ONLY,
      handler: async (args) => {
        const q = args.query as string;
        const result = checkExpression(args.language as QueryLanguage, q);
        if (result.valid) return textResult(`valid ${result.kind} query\ncanonical: ${result.canonical}`, result);
        const { line, col, start, end } = result.error.position;
        const caret = q.includes('\n') ? '' : `\n  ${q}\n  ${' '.repeat(start)}${'^'.repeat(Math.max(1, Math.min(end, q.length) - start))}`;
        return textResult(`invalid: ${line}:${col}: ${result.error.message}${caret}`, result);
      },
    },
    {
      name: 'explain_query',
      title: 'Explain a query',
      description: 'Parse a query and, before running it, show its structure, each selector with the series/streams it matches and the stored samples/lines it would scan.',
      inputSchema: {
        type: 'object',
        properties: { language: LANGUAGE, query: { type: 'string' }, start: START, end: END },
        required: ['language', 'query'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          kind: { type: 'string' },
          canonical: { type: 'string' },
          structure: { type: 'array', items: { type: 'string' } },
          window: { type: 'object' },
          selectors: { type: 'array', items: { type: 'object' } },
          estimatedSamples: { type: 'integer' },
        },
        required: ['kind', 'canonical', 'selectors'],
      },
      annotations: READ_ONLY,
      handler: async (args, ctx) => {
        const language = args.language as QueryLanguage;
        const q = args.query as string;
        const query = access.check(language, q);
        const checked = checkExpression(language, q);
        const window = access.window(args);
        const storage = access.storage;
        const selectors = [];
        let estimated = 0;
        for (const sel of selectorsOf(query, window)) {
          const matching = countSeries(storage, ctx.orgId, language, sel.matchers, sel.minMs, sel.maxMs);
          let reach: number;
          if (language === 'promql') {
            const querier = storage.metrics(ctx.orgId);
            const selection = [{ matchers: sel.matchers, minMs: sel.minMs, maxMs: sel.maxMs }];
            await querier.prepare(selection);
            reach = shareSize(gatherMetricShare(querier, selection));
          } else {
            const reader = storage.logs(ctx.orgId);
            const selection = [sel.logSelection!];
            await reader.prepare(selection);
            reach = logShareSize(gatherLogShare(reader, selection));
          }
          estimated += reach;
          selectors.push({ selector: sel.selector, reads: `${isoTime(sel.minMs)} to ${isoTime(sel.maxMs)}`, matching, scanUpTo: reach });
        }
        const kind = checked.valid ? checked.kind : query.kind;
        const structure = outline(query.expr, q);
        const canonical = checked.valid ? checked.canonical : q;
        const lines = [
          `${language} ${kind} query, window ${isoTime(window.startMs)} to ${isoTime(window.endMs)} (${formatDuration(window.endMs - window.startMs)}), step ${formatDuration(window.stepMs)}, ${window.points} points per series`,
          `canonical: ${canonical}`,
          'structure:',
          ...structure.map((line) => `  ${line}`),
          ...selectors.map((s) => `selector ${s.selector}: ${s.matching} ${language === 'promql' ? 'series' : 'streams'}, reads ${s.reads}, scans at most ${s.scanUpTo} stored ${language === 'promql' ? 'samples' : 'lines'}`),
          `estimated scan: at most ${estimated} ${language === 'promql' ? 'samples' : 'lines'} (whole stored segments counted; lookback ${formatDuration(LOOKBACK_MS)})`,
        ];
        if (selectors.some((s) => s.matching === 0)) lines.push('a selector matches nothing: the query will return no data for it; see list_labels.');
        return textResult(lines.join('\n'), {
          kind,
          canonical,
          structure,
          window: { start: isoTime(window.startMs), end: isoTime(window.endMs), stepSeconds: window.stepMs / 1000, points: window.points },
          selectors,
          estimatedSamples: estimated,
        });
      },
    },
  ];
}
