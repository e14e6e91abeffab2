import { parseLogQL, printLogQL } from '../../engine/index.js';
import { requireQuery } from './lokiParams.js';

/**
 * /format_query: a LogQL expression printed in its canonical form (Grafana's query editor
 * offers it as "format query"). A query that does not parse gets the parser's message.
 */
export function formatQuery(params: URLSearchParams): string {
  return printLogQL(parseLogQL(requireQuery(params)));
}
