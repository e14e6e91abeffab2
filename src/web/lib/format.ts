import type { NumberFormat } from '../../dashboards/types.js';

/** legendName fills `{{label}}` from the series' tags; without a template the series label is used. */
export function legendName(template: string | undefined, tags: Record<string, string>, fallback: string): string {
  if (template === undefined || template === '') return fallback;
  return template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_, name: string) => tags[name] ?? '');
}

/** formatNumber renders a value with the panel's format: fixed decimals, or up to 3 significant places. */
export function formatNumber(value: number | undefined, format?: NumberFormat, unit?: string): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const decimals = format?.decimalPlaces;
  let text: string;
  if (decimals !== undefined) text = value.toFixed(decimals);
  else if (Math.abs(value) >= 1e9) text = (value / 1e9).toFixed(2) + 'G';
  else if (Math.abs(value) >= 1e6) text = (value / 1e6).toFixed(2) + 'M';
  else if (Math.abs(value) >= 1e4) text = (value / 1e3).toFixed(1) + 'k';
  else text = Number(value.toPrecision(4)).toString();
  const suffix = format?.unit ?? (unit ? ` ${unit}` : '');
  return text + suffix;
}

/** formatBytes renders memory for the service panels. */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** formatAge renders seconds as the largest sensible unit: 42s, 5m, 3h, 2d. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/** PALETTE colors series in order when the spec gives no color. */
export const PALETTE = ['#3274d9', '#e0752d', '#56a64b', '#d44a3a', '#8f3bb8', '#37872d', '#c4162a', '#1f78c1', '#ba43a9', '#705da0', '#508642', '#cca300'];

export function colorAt(i: number): string {
  return PALETTE[i % PALETTE.length];
}

/** LEVEL_COLORS color log levels the way log viewers usually do. */
export const LEVEL_COLORS: Record<string, string> = {
  fatal: '#8b0000',
  critical: '#8b0000',
  error: '#d44a3a',
  warn: '#e0b400',
  warning: '#e0b400',
  info: '#3274d9',
  debug: '#8e8e8e',
  trace: '#b0b0b0',
};
