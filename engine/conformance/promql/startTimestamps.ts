/**
 * `metric{...}@st <sequence>` lines of the PromQL test scripts: each sample's start timestamp
 * as an offset from the sample's own time, written as durations with the expansion notation of
 * series values (`_`, `_xN`, `A`, `AxN`, `A+BxN`, `A-BxN`; `A` may be signed).
 */
import { parsePromDuration } from '../../common/duration.js';

const DURATION = String.raw`(?:\d+(?:ms|[smhdwy])?)+`;
const TERM = new RegExp(String.raw`^([+-]?${DURATION})(?:([+-])(${DURATION}))?(?:x(\d+))?$`);
const OMITTED = /^_(?:x(\d+))?$/;

function durationMs(text: string, token: string): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  const ms = /^\d+$/.test(body) ? Number(body) * 1000 : parsePromDuration(body);
  if (ms === undefined) throw new Error(`invalid start timestamp offset ${JSON.stringify(token)}`);
  return sign * ms + 0;
}

/** parseStartTimestampOffsets expands a sequence into one offset (ms) or null (omitted) per slot. */
export function parseStartTimestampOffsets(sequence: string): (number | null)[] {
  const out: (number | null)[] = [];
  for (const token of sequence.trim().split(/\s+/)) {
    if (token === '') continue;
    const omitted = OMITTED.exec(token);
    if (omitted !== null) {
      const n = omitted[1] === undefined ? 1 : Number(omitted[1]);
      for (let i = 0; i < n; i++) out.push(null);
      continue;
    }
    const m = TERM.exec(token);
    if (m === null) throw new Error(`invalid start timestamp sequence item ${JSON.stringify(token)}`);
    const start = durationMs(m[1], token);
    const step = m[3] === undefined ? 0 : (m[2] === '-' ? -1 : 1) * durationMs(m[3], token);
    const times = m[4] === undefined ? 0 : Number(m[4]);
    for (let i = 0; i <= times; i++) out.push(start + i * step);
  }
  return out;
}
