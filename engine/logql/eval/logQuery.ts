/**
 * Raw log queries: a stream selector and its pipeline, returning lines with their labels.
 * The query walks its time range in slices in output order (oldest first, or newest first
 * backward) so a caller can stream results, stop at the limit, or run slices one at a time;
 * pipelines are built once per stream and reused across slices.
 */
import type { Expr, LogSelectorExpr } from '../ast.js';
import type { MemoryBudget } from '../../common/memoryBudget.js';
import { EngineError } from '../../errors.js';
import type { Labels } from '../../storage/labels.js';
import type { LogReader } from '../../storage/logHead.js';
import type { LineMatch } from '../../storage/lineMatch.js';
import { asciiText, isLineScanner, scanStreams, type AsciiLineVisitor } from '../../storage/logLineScan.js';
import { checkSignal } from './context.js';
import { labelsKeyOf, setLabel } from './labelSet.js';
import { LabelCache, sortParallel } from './labelsBuilder.js';
import { matcherOf } from './matchers.js';
import { ASCII_DROPPED, CompiledPipeline, type StreamPipeline } from './pipeline/pipeline.js';
import { prefilterOf, type TextFiltered } from './pipeline/prefilter.js';
import { UNREAD_TIMESTAMP } from './pipeline/stage.js';
import type { LogDirection, LogQueryOptions, LogRow } from './types.js';

/** MESSAGE_TAG is the tag holding a row's line. */
export const MESSAGE_TAG = 'message';

/** BATCH is how many lines are processed between abort checks. */
const BATCH = 8192;

/** ROW_OVERHEAD_BYTES stands for a row's fixed cost (its objects and timestamp) in byte estimates. */
const ROW_OVERHEAD_BYTES = 64;

/**
 * rowBytes estimates what a row holds: its tags' names and values (the line among them as
 * `message`, or apart when a field list left it out) and a fixed overhead; a few additions.
 */
export function rowBytes(row: { readonly tags: Readonly<Record<string, string>>; readonly line: string | undefined }): number {
  let bytes = ROW_OVERHEAD_BYTES;
  const tags = row.tags;
  for (const name in tags) bytes += name.length + tags[name].length;
  if (tags[MESSAGE_TAG] === undefined) bytes += row.line?.length ?? 0;
  return bytes;
}

interface Candidate {
  ts: bigint;
  streamKey: string;
  seq: number;
  row: LogRow;
}

/**
 * PrefilterUse turns a query's prefilter off once it has kept most of the lines it read: each
 * line it keeps is then read twice (by the prefilter, then by the whole pipeline), about
 * 1.2x the time of the whole pipeline alone when it keeps every line.
 */
export class PrefilterUse {
  on = true;
  private seen = 0;
  private passed = 0;

  /** kept counts one line the prefilter read and returns whether it kept it. */
  kept(passed: boolean): boolean {
    if (passed) this.passed++;
    if (++this.seen === PREFILTER_TRIAL_LINES) {
      this.on = this.passed * 2 < this.seen;
      this.seen = 0;
      this.passed = 0;
    }
    return passed;
  }
}

/** PREFILTER_TRIAL_LINES is how many lines decide whether the prefilter stays on (every such run of lines decides again, until it is off). */
const PREFILTER_TRIAL_LINES = 4096;

/**
 * ScannedStream is what a raw query keeps per tag set: its pipeline, its prefilter's
 * (prefilter.ts), its key, and the literal filters its lines open with, which the store
 * applies to its bytes before a line is visited (the prefilter's where there is one: they
 * include those for the texts its label filters want).
 */
interface ScannedStream {
  sp: StreamPipeline;
  pre: StreamPipeline | undefined;
  streamKey: string;
  lines: LineMatch | undefined;
}

/**
 * LogQuery is a prepared raw query. slice() evaluates one time range; iterate() walks the
 * query's whole range slice by slice.
 */
export class LogQuery {
  private readonly pipeline: CompiledPipeline;
  /** prefilter drops, before the whole pipeline runs, lines its opening filters drop (prefilter.ts). */
  private readonly prefilter: TextFiltered | undefined;
  /** prefilterUse decides whether the prefilter still pays (PrefilterUse). */
  private readonly prefilterUse = new PrefilterUse();
  private readonly streams = new Map<string, ScannedStream>();
  private readonly cache = new LabelCache();
  private readonly fields: ReadonlySet<string> | undefined;
  private readonly memory: MemoryBudget | undefined;
  readonly direction: LogDirection;

  constructor(
    readonly expr: LogSelectorExpr,
    options: Pick<LogQueryOptions, 'direction' | 'fields' | 'memory'> = {},
  ) {
    this.memory = options.memory;
    this.pipeline = new CompiledPipeline(expr.pipeline, { memory: options.memory });
    this.prefilter = prefilterOf(expr.pipeline, options.memory);
    this.direction = options.direction ?? 'forward';
    this.fields = options.fields === undefined ? undefined : new Set(options.fields);
  }

  private scannedStream(tags: Labels): ScannedStream {
    const streamKey = labelsKeyOf(tags);
    let stream = this.streams.get(streamKey);
    if (stream === undefined) {
      stream = {
        sp: this.pipeline.forStream(tags, this.cache),
        pre: this.prefilter?.forStream(tags, this.cache),
        streamKey,
        lines: this.prefilter !== undefined ? this.prefilter.openingLinesFor(tags) : this.pipeline.openingLines,
      };
      this.streams.set(streamKey, stream);
    }
    return stream;
  }

  private rowTags(sp: StreamPipeline, line: string): Labels {
    const { names, values } = sp.labels.entries();
    // A parsed `message` label loses its name to the line itself, as any parsed name that
    // collides with a stored tag does.
    const at = names.indexOf(MESSAGE_TAG);
    if (at >= 0) names[at] = `${MESSAGE_TAG}_extracted`;
    names.push(MESSAGE_TAG);
    values.push(line);
    sortParallel(names, values);
    const out: Record<string, string> = {};
    const fields = this.fields;
    for (let i = 0; i < names.length; i++) {
      if (fields === undefined || fields.has(names[i])) setLabel(out, names[i], values[i]);
    }
    return out;
  }

  /**
   * slice returns the rows in [fromNs, toNs] (inclusive) in the query's direction, at most
   * `limit` of them (0: all).
   */
  slice(reader: LogReader, fromNs: bigint, toNs: bigint, limit = 0, signal?: AbortSignal): LogRow[] {
    checkSignal(signal);
    let candidates: Candidate[] = [];
    const sign = this.direction === 'forward' ? 1 : -1;
    const order = (a: Candidate, b: Candidate): number => {
      if (a.ts !== b.ts) return a.ts < b.ts ? -sign : sign;
      if (a.streamKey !== b.streamKey) return a.streamKey < b.streamKey ? -sign : sign;
      return (a.seq - b.seq) * sign;
    };
    // With a limit, candidates are cut back to the best `limit` whenever they pass twice that,
    // so a dense slice holds about 2 x limit rows, not all of its lines.
    const keepAtMost = limit > 0 ? 2 * limit + 1024 : Number.POSITIVE_INFINITY;
    const cutTo = (n: number): void => {
      candidates.sort(order);
      if (this.memory !== undefined) for (let i = n; i < candidates.length; i++) this.memory.release(rowBytes(candidates[i].row));
      candidates = candidates.slice(0, n);
    };
    // Lines come in the store's order where the reader scans (LogLineScanner), else stream by
    // stream; either way one tag set's lines come oldest first, the older source's first on
    // equal times, so the count of lines seen so far orders a stream's ties as a merged run would.
    let processed = 0;
    const open = (tags: Labels): ScannedStream => this.scannedStream(tags);
    /** keep runs the whole pipeline over a line and keeps the row it makes. */
    const keep = (stream: ScannedStream, text: string, ts: bigint): void => {
      const line = stream.sp.process(ts, text);
      if (line === null) return;
      const row = { timestampNs: ts, tags: this.rowTags(stream.sp, line), line };
      // Every candidate is kept until the slice is sorted and cut to its limit.
      this.memory?.charge(rowBytes(row), 'log lines and labels kept');
      candidates.push({ ts, streamKey: stream.streamKey, seq: processed, row });
      if (candidates.length >= keepAtMost) cutTo(limit);
    };
    const prefilterTime = this.prefilter?.readsTimestamp === true;
    const visit = (stream: ScannedStream, text: string, times: BigInt64Array, at: number): void => {
      if (++processed % BATCH === 0) checkSignal(signal);
      const pre = stream.pre;
      if (pre !== undefined && this.prefilterUse.on && !this.prefilterUse.kept(pre.process(prefilterTime ? times[at] : UNREAD_TIMESTAMP, text) !== null)) return;
      keep(stream, text, times[at]);
    };
    // Lines the store keeps as ASCII bytes meet the prefilter there: a dropped line's string is never made.
    const visitAscii: AsciiLineVisitor<ScannedStream> | undefined =
      this.prefilter?.readsAscii === true && !prefilterTime
        ? (stream, line, times, at) => {
            if (++processed % BATCH === 0) checkSignal(signal);
            if (this.prefilterUse.on && !this.prefilterUse.kept(stream.pre!.processAscii(UNREAD_TIMESTAMP, line.bytes, line.start, line.end) !== ASCII_DROPPED)) return;
            keep(stream, asciiText(line), times[at]);
          }
        : undefined;
    const matchers = this.expr.matchers.map(matcherOf);
    if (isLineScanner(reader)) reader.scanLines(matchers, fromNs, toNs, open, visit, visitAscii, linesOf);
    else scanStreams(reader.select(matchers, fromNs, toNs), open, visit);
    cutTo(limit > 0 ? Math.min(limit, candidates.length) : candidates.length);
    const rows = new Array<LogRow>(candidates.length);
    for (let i = 0; i < candidates.length; i++) rows[i] = candidates[i].row;
    return rows;
  }

  /** iterate yields the rows of [startNs, endNs] slice by slice, stopping at the limit. */
  *iterate(reader: LogReader, options: LogQueryOptions): Generator<LogRow[], void, undefined> {
    const { startNs, endNs } = options;
    if (endNs < startNs) return;
    const width = options.sliceNs !== undefined && options.sliceNs > 0n ? options.sliceNs : endNs - startNs + 1n;
    let remaining = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
    const forward = this.direction === 'forward';
    let cursor = forward ? startNs : endNs;
    while (remaining > 0 && (forward ? cursor <= endNs : cursor >= startNs)) {
      const from = forward ? cursor : cursor - width + 1n < startNs ? startNs : cursor - width + 1n;
      const to = forward ? (cursor + width - 1n > endNs ? endNs : cursor + width - 1n) : cursor;
      const rows = this.slice(reader, from, to, remaining === Infinity ? 0 : remaining, options.signal);
      remaining -= rows.length;
      if (rows.length > 0) yield rows;
      cursor = forward ? to + 1n : from - 1n;
    }
  }
}

/** linesOf is the literal filters a scanned stream's lines must pass to be visited. */
function linesOf(stream: ScannedStream): LineMatch | undefined {
  return stream.lines;
}

function selectorOf(expr: Expr): LogSelectorExpr {
  if (expr.kind !== 'LogSelector') throw new EngineError('COMPILE_ERROR', 'metric queries are not log queries; use evaluateLogQLRange', expr.pos);
  return expr;
}

/** iterateLogQuery walks a raw log query slice by slice (see LogQuery.iterate). */
export function iterateLogQuery(expr: Expr, reader: LogReader, options: LogQueryOptions): Generator<LogRow[], void, undefined> {
  return new LogQuery(selectorOf(expr), options).iterate(reader, options);
}

/** evaluateLogQuery returns every row of a raw log query, in order, up to the limit. */
export function evaluateLogQuery(expr: Expr, reader: LogReader, options: LogQueryOptions): LogRow[] {
  const rows: LogRow[] = [];
  // Row by row: spreading a batch of a few hundred thousand rows into push() overflows the stack.
  for (const batch of iterateLogQuery(expr, reader, options)) for (const row of batch) rows.push(row);
  return rows;
}
