/**
 * Duration tokens as the PromQL parser reads them. The value comes from the shared
 * parsePromDuration; this module adds what a parser needs beyond it: Prometheus' explanation of
 * why a token is not a duration, and its range limit (a Go time.Duration, int64 nanoseconds).
 */
import { quoteGoString } from '../common/quote.js';
import { parsePromDuration } from '../common/duration.js';

/** MAX_DURATION_SECONDS is the largest duration Prometheus can hold: 2^63 ns, in seconds. */
export const MAX_DURATION_SECONDS = 2 ** 63 / 1e9;

const UNIT_ORDER: ReadonlyMap<string, number> = new Map([
  ['y', 1],
  ['w', 2],
  ['d', 3],
  ['h', 4],
  ['m', 5],
  ['s', 6],
  ['ms', 7],
]);

/** DurationParse is a duration in milliseconds, or the reason the text is not one. */
export type DurationParse = { ok: true; ms: number } | { ok: false; message: string };

/** parseDurationToken reads a DURATION token (`1h30m`) into milliseconds. */
export function parseDurationToken(text: string): DurationParse {
  const ms = parsePromDuration(text);
  if (ms === undefined) return { ok: false, message: explainBadDuration(text) };
  if (ms / 1000 > MAX_DURATION_SECONDS) return { ok: false, message: 'duration out of range' };
  return { ok: true, ms };
}

/** explainBadDuration words the failure the way Prometheus' duration parser does. */
function explainBadDuration(text: string): string {
  const notValid = `not a valid duration string: ${quoteGoString(text)}`;
  let rest = text;
  let lastOrder = 0;
  while (rest !== '') {
    const match = /^(\d+)(\D*)/.exec(rest);
    if (match === null || match[2] === '') return notValid;
    const order = UNIT_ORDER.get(match[2]);
    if (order === undefined) return `unknown unit ${quoteGoString(match[2])} in duration ${quoteGoString(text)}`;
    if (order <= lastOrder) return notValid;
    lastOrder = order;
    rest = rest.slice(match[0].length);
  }
  return notValid;
}

/**
 * secondsToMs converts float seconds to milliseconds at Prometheus' nanosecond resolution
 * (adding 0 turns -0 into 0, so `offset -0s` and `offset 0s` build the same tree).
 */
export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1e9) / 1e6 + 0;
}
