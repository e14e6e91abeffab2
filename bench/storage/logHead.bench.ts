import { SnapshotLogReader } from '../../engine/query/snapshotLogReader.js';
import { LogHead, type LogEntry } from '../../engine/storage/logHead.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * Selecting from a log head: finding a window's lines among everything in memory and grouping
 * them by tag set. This benchmark appends two million lines (20 streams, a few levels and
 * attribute sets) and times selections against a baseline measured in the same run: one bare
 * pass over the same number of lines that only copies timestamps and messages (what any select
 * must at least do). Queries read a head through its snapshot on a worker (SnapshotLogReader,
 * the "snapshot reader" column); the head's own select serves in-process readers (the
 * conformance suite). Both decode sealed rows' messages from the shared chunks that hold them,
 * so both pay a decode per line that the bare copy of strings does not.
 */
const LINES = 2_000_000;
const BASE_NS = 1_700_000_000_000_000_000n;
const RUNS = 5;

/** build appends the lines in time order; `late` adds one line older than the rest at the end, as a delayed sender would. */
function build(late = false): LogHead {
  const head = new LogHead(new Set(['app', 'pod']));
  const levels = ['info', 'info', 'info', 'debug', 'warn', 'error'];
  const batch: LogEntry[] = [];
  for (let i = 0; i < LINES; i++) {
    batch.push({
      timestampNs: BASE_NS + BigInt(i) * 1_000_000n + BigInt(i % 7),
      level: levels[i % levels.length],
      message: `request ${i} handled in ${i % 250} ms`,
      tags: { app: `app${i % 5}`, pod: `pod${i % 4}`, route: `/r${i % 6}`, ...(i % 10 === 0 ? { user: 'bob' } : {}) },
    });
    if (batch.length === 10_000) head.append(batch.splice(0));
  }
  head.append(batch);
  if (late) head.append([{ timestampNs: BASE_NS - 1n, level: 'info', message: 'late', tags: { app: 'app0', pod: 'pod0' } }]);
  return head;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

function time(fn: () => number): { ms: number; lines: number } {
  let lines = 0;
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    lines = fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), lines };
}

/** bareCopy is the baseline: copy `n` timestamps and messages out of flat arrays in one pass. */
function bareCopy(timestamps: BigInt64Array, messages: readonly string[], n: number): number {
  const ts = new BigInt64Array(n);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    ts[i] = timestamps[i];
    out[i] = messages[i];
  }
  return out.length;
}

export function main(): void {
  const t0 = performance.now();
  const head = build();
  console.log(`appended ${LINES} lines in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const columns = head.columns();
  const lastTenth = BASE_NS + BigInt(LINES * 0.9) * 1_000_000n;
  const end = BASE_NS + BigInt(LINES) * 1_000_000n;
  const cases = [
    { name: 'one app, whole head', matchers: [{ name: 'app', type: '=' as const, value: 'app1' }], min: BASE_NS, max: end },
    { name: 'all lines, whole head', matchers: [], min: BASE_NS, max: end },
    { name: 'all lines, last 10%', matchers: [], min: lastTenth, max: end },
    { name: 'attribute matcher', matchers: [{ name: 'user', type: '=' as const, value: 'bob' }], min: BASE_NS, max: end },
  ];
  const unordered = build(true);
  cases.push({ ...cases[0], name: 'one app, head with a late line', head: unordered } as (typeof cases)[number]);
  const rows: Record<string, Record<string, string>> = {};
  for (const c of cases) {
    const h = (c as { head?: LogHead }).head ?? head;
    const sel = time(() => h.select(c.matchers, c.min, c.max).reduce((n, s) => n + s.messages.length, 0));
    const reader = new SnapshotLogReader(h.snapshot());
    const snap = time(() => reader.select(c.matchers, c.min, c.max).reduce((n, s) => n + s.messages.length, 0));
    const base = time(() => bareCopy(columns.timestampsNs, columns.messages, sel.lines));
    rows[c.name] = {
      lines: String(sel.lines),
      'select ms': sel.ms.toFixed(1),
      'M lines/s': (sel.lines / sel.ms / 1000).toFixed(2),
      'snapshot reader ms': snap.ms.toFixed(1),
      'bare copy ms': base.ms.toFixed(1),
      'select / bare copy': (sel.ms / base.ms).toFixed(1),
    };
  }
  console.table(rows);
}

runWhenDirect(import.meta.url, main);
