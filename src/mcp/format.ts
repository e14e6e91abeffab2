/**
 * Shaping results for a model's context window. Tool output is text a model reads, so rows
 * are compact CSV rather than JSON, numbers are short, and every result fits a token budget:
 * rows are added until the next would pass it, and the result says it was cut and how to ask
 * for less.
 */

/** DEFAULT_TOKENS is a result's budget unless a call asks otherwise; MAX_TOKENS is the hard cap. */
export const DEFAULT_TOKENS = 6000;
export const MAX_TOKENS = 25_000;

/**
 * estimateTokens approximates a tokenizer: about four characters per token for prose and
 * code-like text. It errs high on digits and punctuation, which is the safe side for a budget.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** budgetOf reads a call's `maxTokens`, clamped to [500, MAX_TOKENS]. */
export function budgetOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_TOKENS;
  return Math.max(500, Math.min(MAX_TOKENS, Math.floor(value)));
}

/** csvCell quotes a cell when it holds a comma, a quote or a line break, as RFC 4180 does. */
export function csvCell(value: string): string {
  if (!/[",\n\r]/.test(value)) return value;
  return `"${value.replace(/"/g, '""')}"`;
}

export function csvRow(cells: readonly string[]): string {
  return cells.map(csvCell).join(',');
}

/**
 * BudgetedLines collects lines until a token budget is spent. `add` returns false (and keeps
 * nothing) once a line would not fit, so a caller stops there and reports truncation.
 */
export class BudgetedLines {
  readonly lines: string[] = [];
  private used = 0;
  truncated = false;

  constructor(private readonly budgetTokens: number) {}

  add(line: string): boolean {
    if (this.truncated) return false;
    const cost = estimateTokens(line) + 1;
    if (this.used + cost > this.budgetTokens && this.lines.length > 0) {
      this.truncated = true;
      return false;
    }
    this.used += cost;
    this.lines.push(line);
    return true;
  }

  get tokens(): number {
    return this.used;
  }
}

/** clip shortens text to `max` characters with an ellipsis, so one huge line cannot take a whole budget. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** formatNumber writes a value with at most four significant digits and no exponent for ordinary magnitudes. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e15 || abs < 1e-6) return value.toExponential(3);
  if (Number.isInteger(value)) return String(value);
  const digits = Math.max(0, 3 - Math.floor(Math.log10(abs)));
  return String(Number(value.toFixed(Math.min(digits, 8))));
}

/** isoTime renders milliseconds as RFC 3339 in UTC, without milliseconds when they are zero. */
export function isoTime(ms: number): string {
  const text = new Date(ms).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

/** formatDuration renders milliseconds as a Prometheus-style duration (90s -> 1m30s). */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

/** SeriesStats are the statistics a one-line series summary shows. */
export interface SeriesStats {
  points: number;
  min: number;
  max: number;
  avg: number;
  last: number;
  lastMs: number;
  /** trend describes how the series moved over the window in words a reader scans quickly. */
  trend: string;
}

/**
 * seriesStats computes min, max, average, last value and a trend in one pass over the finite
 * values. The trend compares the mean of the last third of the points with the first third:
 * "flat" within 5 %, else "up"/"down" with the change, and "spike" when the maximum stands far
 * above an otherwise quiet series.
 */
export function seriesStats(timestampsMs: ArrayLike<number>, values: ArrayLike<number>): SeriesStats | undefined {
  let n = 0;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let last = NaN;
  let lastMs = NaN;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    n++;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    last = v;
    lastMs = timestampsMs[i];
  }
  if (n === 0) return undefined;
  const avg = sum / n;
  return { points: n, min, max, avg, last, lastMs, trend: trendOf(values, n, avg, max) };
}

function trendOf(values: ArrayLike<number>, finite: number, avg: number, max: number): string {
  if (finite < 3) return 'n/a';
  const third = Math.max(1, Math.floor(values.length / 3));
  const head = meanOf(values, 0, third);
  const tail = meanOf(values, values.length - third, values.length);
  if (max > 0 && avg > 0 && max > 5 * avg && Math.abs(tail - head) <= 0.5 * avg) return 'spike';
  if (!Number.isFinite(head) || !Number.isFinite(tail)) return 'n/a';
  const scale = Math.max(Math.abs(head), Math.abs(tail), 1e-12);
  const change = (tail - head) / scale;
  if (Math.abs(change) < 0.05) return 'flat';
  if (head === 0) return tail > 0 ? 'up from 0' : 'down from 0';
  const pct = Math.round(((tail - head) / Math.abs(head)) * 100);
  return `${pct > 0 ? 'up' : 'down'} ${Math.abs(pct)}%`;
}

function meanOf(values: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (let i = from; i < to; i++) {
    const v = values[i];
    if (Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n === 0 ? NaN : sum / n;
}

/** formatLabelsShort writes a label set as {k="v", ...} with the metric name in front, as Prometheus prints series. */
export function formatLabelsShort(labels: Record<string, string>): string {
  const name = labels.__name__ ?? '';
  const rest = Object.keys(labels)
    .filter((k) => k !== '__name__')
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `${name}{${rest.join(', ')}}`;
}
