/**
 * Canonical text of LogQL literals that are not plain decimals: byte sizes (`20MB`, `1KiB`)
 * and durations. Numbers and byte sizes are read by engine/common (goFloat.ts, byteSize.ts). Kept apart from the lexer so
 * the printer and the evaluator (which parses label values with the same rules) share them.
 */
import { formatPromDuration } from '../common/duration.js';

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
 * (`20MB`, `1KiB`, `1536B`), which parseHumanByteSize and the lexer read back unchanged.
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
