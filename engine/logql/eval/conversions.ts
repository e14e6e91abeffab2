/**
 * Label values converted the way Loki converts them, with the same error text, because that
 * text becomes `__error_details__` and users match on it: time.ParseDuration for durations and
 * go-humanize's ParseBytes for sizes (numbers go through parseGoFloat in engine/common). Values come back
 * as plain numbers (durations in nanoseconds).
 */
import { parseGoDuration } from '../../common/duration.js';
import { quoteGoString } from '../../common/quote.js';
import { isHumanByteNumber, parseHumanByteSize, splitHumanByteSize } from '../../common/byteSize.js';

/** Converted is a converted value, or the error message Loki would report. */
export type Converted = { ok: true; value: number } | { ok: false; message: string };

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * durationError explains why `text` is not a Go duration, checking in the order
 * time.ParseDuration does so the first problem it would report is the one named.
 */
function durationError(text: string): string {
  const quoted = quoteGoString(text);
  const invalid = `time: invalid duration ${quoted}`;
  let i = 0;
  if (text[i] === '-' || text[i] === '+') i++;
  if (i >= text.length) return invalid;
  while (i < text.length) {
    if (!(text[i] === '.' || isDigit(text[i]))) return invalid;
    const numStart = i;
    let digitsBefore = 0;
    while (isDigit(text[i])) {
      i++;
      digitsBefore++;
    }
    let digitsAfter = 0;
    if (text[i] === '.') {
      i++;
      while (isDigit(text[i])) {
        i++;
        digitsAfter++;
      }
    }
    if (digitsBefore === 0 && digitsAfter === 0) return invalid;
    const unitStart = i;
    while (i < text.length && text[i] !== '.' && !isDigit(text[i])) i++;
    if (i === unitStart) return `time: missing unit in duration ${quoted}`;
    const unit = text.slice(unitStart, i);
    if (!DURATION_UNITS.has(unit)) return `time: unknown unit ${quoteGoString(unit)} in duration ${quoted}`;
    if (numStart === i) return invalid;
  }
  return invalid;
}

/** parseDurationValue reads a label value like time.ParseDuration; the value is in nanoseconds. */
export function parseDurationValue(text: string): Converted {
  const ns = parseGoDuration(text);
  if (ns !== undefined) return { ok: true, value: ns };
  return { ok: false, message: durationError(text) };
}

/** parseBytesValue reads a label value like humanize.ParseBytes. */
export function parseBytesValue(text: string): Converted {
  const bytes = parseHumanByteSize(text);
  if (bytes !== undefined) return { ok: true, value: bytes };
  const { numberText, unitText: extra } = splitHumanByteSize(text);
  if (!isHumanByteNumber(numberText)) {
    return { ok: false, message: `strconv.ParseFloat: parsing ${quoteGoString(numberText)}: invalid syntax` };
  }
  if (parseHumanByteSize(`1${extra}`) === undefined) return { ok: false, message: `unhandled size name: ${extra}` };
  return { ok: false, message: `too large: ${text}` };
}
