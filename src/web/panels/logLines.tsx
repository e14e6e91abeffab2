import { LEVEL_COLORS } from '../lib/format.js';
import type { LogLine } from '../lib/queryRun.js';

/** LogLines lists log rows newest first with their time, level and message. */
export function LogLines({ lines }: { lines: LogLine[] }) {
  if (lines.length === 0) return <p class="empty">No lines.</p>;
  return (
    <ol class="log-lines">
      {lines.map((line, i) => {
        const level = String(line.tags.level ?? line.tags.severity_text ?? '');
        const message = String(line.tags.message ?? line.tags.body ?? JSON.stringify(line.tags));
        return (
          <li key={i} class="log-line">
            <time dateTime={new Date(line.timestamp).toISOString()}>{new Date(line.timestamp).toLocaleTimeString()}</time>
            <span class="level" style={{ color: LEVEL_COLORS[level.toLowerCase()] ?? 'inherit' }}>
              {level}
            </span>
            <span class="service">{String(line.tags.service_name ?? '')}</span>
            <span class="message">{message}</span>
          </li>
        );
      })}
    </ol>
  );
}
