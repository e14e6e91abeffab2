/**
 * Literal values of LogQL that are not plain decimals: byte sizes (`20MB`, `1KiB`) and the
 * canonical text of durations (numbers are read by engine/common/goFloat.ts). Kept apart from the lexer so
 * the printer and the evaluator (which parses label values with the same rules) share them.
 */
import { formatPromDuration } from '../common/duration.js';

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
  p: 1e15,
  pb: 1e15,
  pi: 1024 ** 5,
  pib: 1024 ** 5,
  e: 1e18,
  eb: 1e18,
  ei: 1024 ** 6,
  eib: 1024 ** 6,
};

const MAX_UINT64 = 18446744073709551615;

/**
 * parseByteSize reads a human byte size the way go-humanize's ParseBytes does (used by Loki
 * for byte literals and for label values in byte filters): a decimal number, optional spaces,
 * and a case-insensitive SI or IEC unit. Returns undefined when `text` is not one.
 */
export function parseByteSize(text: string): number | undefined {
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if ((c >= 48 && c <= 57) || c === 46 || c === 44) end++;
    else break;
  }
  const numberText = text.slice(0, end).replace(/,/g, '');
  if (!/^(?:\d+\.?\d*|\.\d+)$/.test(numberText)) return undefined;
  const unit = BYTE_UNITS[text.slice(end).trim().toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.trunc(Number(numberText) * unit);
  if (!Number.isFinite(bytes) || bytes > MAX_UINT64) return undefined;
  return bytes;
}

/**
 * formatLogQLDuration renders milliseconds so that the lexer reads back the same value:
 * Prometheus form for whole milliseconds, nanoseconds otherwise (`1500us` prints `1500000ns`).
 */
export function formatLogQLDuration(ms: number): string {
  if (Number.isInteger(ms)) return formatPromDuration(ms);
  const ns = Math.round(ms * 1e6);
  return ns % 1000 === 0 ? `${ns / 1000}us` : `${ns}ns`;
}

/** BYTE_SIZE_UNITS are the units formatByteSize may print, largest first. */
const BYTE_SIZE_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['PiB', 1024 ** 5],
  ['PB', 1e15],
  ['TiB', 1024 ** 4],
  ['TB', 1e12],
  ['GiB', 1024 ** 3],
  ['GB', 1e9],
  ['MiB', 1024 ** 2],
  ['MB', 1e6],
  ['KiB', 1024],
  ['KB', 1e3],
];

/**
 * formatByteSize renders a byte count with the largest unit that divides it exactly
 * (`20MB`, `1KiB`, `1536B`), which parseByteSize and the lexer read back unchanged.
 */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of BYTE_SIZE_UNITS) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** formatNumber renders a float so that the lexer reads back the same value. */
export function formatNumber(value: number): string {
  if (Object.is(value, -0)) return '-0';
  return String(value);
}
