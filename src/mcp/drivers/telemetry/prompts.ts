import type { PromptSpec } from '../../driver.js';

/**
 * Ready-made investigations. Each is a plan that names the telemetry tools in the order an
 * experienced on-call engineer would use them, so a client can start one with a click.
 */

function userMessage(text: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}

export const TELEMETRY_PROMPTS: PromptSpec[] = [
  {
    name: 'service_health',
    title: 'Check a service',
    description: 'Is this service healthy right now? Errors, latency, traffic and log patterns.',
    arguments: [
      { name: 'service', description: 'service_name to check', required: true },
      { name: 'window', description: 'how far back, e.g. 1h (default)' },
    ],
    render: (args) => {
      const svc = args.service ?? 'SERVICE';
      const w = args.window ?? '1h';
      return userMessage(
        [
          `Assess the health of service "${svc}" over the last ${w} with the Sluice telemetry tools:`,
          `1. error_overview service="${svc}" start="now-${w}" for error log and 5xx rates and top error messages.`,
          `2. find_metrics label=service_name value="${svc}" to see what it exports; metric_metadata on the request and latency metrics.`,
          `3. query_metrics for traffic (sum(rate(<requests>_total{service_name="${svc}"}[5m]))), errors, and latency (histogram_quantile(0.99, sum by (le) (rate(<duration>_bucket{service_name="${svc}"}[5m])))).`,
          `4. log_patterns {service_name="${svc}"} to see what kinds of lines it writes; compare with level="error".`,
          'Report: healthy or not, the evidence (numbers with their trend), and what to look at next.',
        ].join('\n'),
      );
    },
  },
  {
    name: 'error_spike',
    title: 'Investigate an error spike',
    description: 'Find which service errors, since when, and what the errors say.',
    arguments: [
      { name: 'service', description: 'service_name, if known' },
      { name: 'start', description: 'window start, e.g. now-3h (default now-1h)' },
    ],
    render: (args) => {
      const start = args.start ?? 'now-1h';
      const scope = args.service ? `service_name="${args.service}"` : 'service_name=~".+"';
      return userMessage(
        [
          `Investigate an error spike${args.service ? ` in "${args.service}"` : ''} since ${start}:`,
          `1. error_overview start="${start}"${args.service ? ` service="${args.service}"` : ''}: which services error, how much.`,
          `2. query_logs 'sum by (service_name) (count_over_time({${scope}, level="error"}[1m]))' start="${start}" points=true to find when it began.`,
          `3. log_patterns {${scope}, level="error"} around the start of the spike: the new templates are the clue.`,
          '4. query_logs on the leading template (|= "<fixed words>") for a few full lines; follow trace ids to callers.',
          '5. query_metrics for 5xx and latency of the affected services and of their dependencies.',
          'Report: first affected service, start time, error kinds with counts, likely cause, and evidence.',
        ].join('\n'),
      );
    },
  },
  {
    name: 'missing_data',
    title: 'Find missing data',
    description: 'A dashboard is empty or a query returns nothing: find out why.',
    arguments: [{ name: 'query', description: 'the query that returns nothing', required: true }],
    render: (args) =>
      userMessage(
        [
          `The query ${args.query ?? '<query>'} returns no data. Find out why:`,
          '1. validate_query to rule out a syntax problem; explain_query to see which selector matches no series.',
          '2. For a selector that matches nothing: list_labels with the label (or __name__) to find the value that exists; find_metrics search=<part of the name>.',
          '3. If series exist but only earlier: widen start (now-24h) and find when data stopped (query_metrics count(...) points=true); list_services for the sender.',
          '4. If series exist now: the range may be too short for rate (use [5m] or more) or a filter removes everything.',
          'Report the cause and a corrected query.',
        ].join('\n'),
      ),
  },
];
