/**
 * Sample extraction: run a log range's pipeline over the selected streams and turn every
 * surviving line into a sample of its output series (the line's labels after the pipeline,
 * reduced by the aggregation's grouping). The value is 1 per line, the line's size in bytes,
 * or the unwrapped label converted to a number; a value that does not convert marks the
 * line `__error__="SampleExtractionErr"` as Loki does.
 *
 * Samples go to a collector. Additive aggregations (counts and byte sums) need no samples at
 * all: each line adds its value to the steps whose windows hold it, through difference
 * arrays, in O(1). The others keep each series' samples in time order for the window kernels.
 */
import type { LabelFilterExpr, LogRangeExpr, PipelineStage, UnwrapConversion } from '../../ast.js';
import { matcherOf } from '../matchers.js';
import type { EvalContext } from '../context.js';
import { parseBytesValue, parseDurationValue, type Converted } from '../conversions.js';
import { parseGoFloat } from '../../../common/goFloat.js';
import type { GroupingSpec, LabelsBuilder, ResultLabels } from '../labelsBuilder.js';
import { ASCII_KEPT, ASCII_NEEDS_TEXT, CompiledPipeline, type StreamPipeline } from '../pipeline/pipeline.js';
import { textFiltered } from '../pipeline/prefilter.js';
import { UNREAD_TIMESTAMP } from '../pipeline/stage.js';
import { compileLabelPredicate, type LabelPredicate } from '../pipeline/labelFilter.js';
import { utf8ByteLength } from '../../../common/utf8.js';
import { OffsetReader, firstStep, lastStep, type LogCountReader } from '../../../storage/logCounts.js';
import type { LogReader } from '../../../storage/logHead.js';
import { asciiText, isLineScanner, scanStreams, type AsciiLineVisitor } from '../../../storage/logLineScan.js';
import type { Labels } from '../../../storage/labels.js';
import type { LineMatch } from '../../../storage/lineMatch.js';
import { openingLiterals } from '../pipeline/openingLiterals.js';

/** SAMPLE_EXTRACTION_ERROR is the `__error__` value of an unwrap that does not convert. */
export const SAMPLE_EXTRACTION_ERROR = 'SampleExtractionErr';

/** ValueSource is where a sample's value comes from. */
export type ValueSource = 'count' | 'bytes' | 'unwrap';

/** StepWindows describes the grid's windows in the samples' time base: step j is (j·step, j·step + range]. */
export interface StepWindows {
  stepNs: number;
  rangeNs: number;
  steps: number;
}

/** ExtractionPlan describes one log range's extraction. */
export interface ExtractionPlan {
  range: LogRangeExpr;
  source: ValueSource;
  grouping?: GroupingSpec;
  /**
   * noLabels says the aggregation reads no label of the lines (no grouping label, no unwrap):
   * Loki's parser hint, which the pipeline keeps only when its stages read no label either.
   */
  noLabels: boolean;
  /**
   * labelsRead are the only labels the aggregation reads of the lines (its `by` grouping and
   * an unwrapped label), or undefined when it keeps every label (no grouping, `without`):
   * Loki's required-labels parser hint, to which the pipeline adds what its stages read.
   */
  labelsRead?: readonly string[];
  preserveError: boolean;
}

/** SeriesSamples holds one output series' samples, timestamps relative to the extraction base. */
export interface SeriesSamples {
  labels: ResultLabels;
  /** ts are nanoseconds after the base, ascending. */
  ts: Float64Array;
  values: Float64Array;
  length: number;
}

/** SeriesWindows holds one output series' per-step sample counts and value sums. */
export interface SeriesWindows {
  labels: ResultLabels;
  counts: Float64Array;
  sums: Float64Array;
}

/** Sink receives samples of one series. */
interface Sink {
  add(t: number, v: number): void;
}

/**
 * SampleBuffer grows one series' columns while streams are read. Each stream appends an
 * ascending run; when several streams feed one series the runs are merged at the end.
 */
class SampleBuffer implements Sink {
  ts: Float64Array<ArrayBufferLike>;
  values: Float64Array<ArrayBufferLike>;
  length = 0;
  /** runStarts lists where each ascending run begins (the first run starts at 0). */
  private readonly runStarts: number[] = [0];

  constructor(
    readonly labels: ResultLabels,
    capacity: number,
  ) {
    this.ts = new Float64Array(Math.max(capacity, 16));
    this.values = new Float64Array(Math.max(capacity, 16));
  }

  add(t: number, v: number): void {
    const n = this.length;
    if (n === this.ts.length) this.grow();
    if (n > 0 && t < this.ts[n - 1]) this.runStarts.push(n);
    this.ts[n] = t;
    this.values[n] = v;
    this.length = n + 1;
  }

  private grow(): void {
    const ts = new Float64Array(this.ts.length * 2);
    ts.set(this.ts);
    this.ts = ts;
    const values = new Float64Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
  }

  /** finish merges the ascending runs (pairwise, stably) into one time-ordered series. */
  finish(): SeriesSamples {
    let runs = [...this.runStarts, this.length];
    if (runs.length > 2) {
      let srcTs: Float64Array = this.ts;
      let srcValues: Float64Array = this.values;
      let dstTs: Float64Array = new Float64Array(this.length);
      let dstValues: Float64Array = new Float64Array(this.length);
      while (runs.length > 2) {
        const next: number[] = [0];
        for (let r = 0; r + 1 < runs.length; r += 2) {
          const lo = runs[r];
          const mid = runs[r + 1];
          const hi = r + 2 < runs.length ? runs[r + 2] : mid;
          let i = lo;
          let j = mid;
          let k = lo;
          while (i < mid && j < hi) {
            if (srcTs[j] < srcTs[i]) {
              dstTs[k] = srcTs[j];
              dstValues[k++] = srcValues[j++];
            } else {
              dstTs[k] = srcTs[i];
              dstValues[k++] = srcValues[i++];
            }
          }
          while (i < mid) {
            dstTs[k] = srcTs[i];
            dstValues[k++] = srcValues[i++];
          }
          while (j < hi) {
            dstTs[k] = srcTs[j];
            dstValues[k++] = srcValues[j++];
          }
          next.push(hi);
        }
        runs = next;
        [srcTs, dstTs] = [dstTs, srcTs];
        [srcValues, dstValues] = [dstValues, srcValues];
      }
      this.ts = srcTs;
      this.values = srcValues;
    }
    return { labels: this.labels, ts: this.ts, values: this.values, length: this.length };
  }
}

/** WindowAccumulator adds each sample to the steps whose windows contain it. */
class WindowAccumulator implements Sink {
  /** countDiff is the per-step difference array of sample counts; a direct count adds into it (logCounts.ts). */
  readonly countDiff: Float64Array;
  private readonly sumDiff: Float64Array;
  /** countsOnly is set when every sample is worth 1 and was added to countDiff alone: sums are then the counts. */
  countsOnly = false;

  constructor(
    readonly labels: ResultLabels,
    private readonly windows: StepWindows,
  ) {
    this.countDiff = new Float64Array(windows.steps + 1);
    this.sumDiff = new Float64Array(windows.steps + 1);
  }

  add(t: number, v: number): void {
    const { stepNs, rangeNs, steps } = this.windows;
    // Step j holds t when j·step < t ≤ j·step + range.
    let hi = lastStep(t, stepNs);
    let lo = firstStep(t, stepNs, rangeNs);
    if (lo < 0) lo = 0;
    if (hi > steps - 1) hi = steps - 1;
    if (lo > hi) return;
    this.countDiff[lo] += 1;
    this.countDiff[hi + 1] -= 1;
    this.sumDiff[lo] += v;
    this.sumDiff[hi + 1] -= v;
  }

  finish(): SeriesWindows {
    const steps = this.windows.steps;
    const counts = new Float64Array(steps);
    const sums = this.countsOnly ? counts : new Float64Array(steps);
    let c = 0;
    let s = 0;
    for (let j = 0; j < steps; j++) {
      c += this.countDiff[j];
      s += this.sumDiff[j];
      counts[j] = c;
      if (!this.countsOnly) sums[j] = s;
    }
    return { labels: this.labels, counts, sums };
  }
}

function converter(conversion: UnwrapConversion | undefined): (text: string) => Converted {
  switch (conversion) {
    case 'bytes':
      return parseBytesValue;
    case 'duration':
    case 'duration_seconds':
      return (text) => {
        const v = parseDurationValue(text);
        return v.ok ? { ok: true, value: v.value / 1e9 } : v;
      };
    default:
      return parseGoFloat;
  }
}

function allOf(filters: readonly LabelFilterExpr[]): LabelPredicate | undefined {
  if (filters.length === 0) return undefined;
  const predicates = filters.map(compileLabelPredicate);
  return (labels) => {
    let ok = true;
    for (const p of predicates) if (!p(labels)) ok = false;
    return ok;
  };
}

/** BATCH is how many lines are processed between abort checks. */
const BATCH = 8192;

/** SERIES_OVERHEAD_BYTES stands for a series' fixed cost (its sink and map entry) in byte estimates. */
const SERIES_OVERHEAD_BYTES = 256;

/** Collector routes samples to per-series sinks, creating them on first use. */
class Collector<S extends Sink> {
  readonly sinks = new Map<string, S>();

  constructor(
    private readonly ctx: EvalContext,
    private readonly create: (labels: ResultLabels, hint: number) => S,
  ) {}

  sink(labels: ResultLabels, hint: number): S {
    let s = this.sinks.get(labels.key);
    if (s === undefined) {
      s = this.create(labels, hint);
      this.sinks.set(labels.key, s);
      this.ctx.checkSeries(this.sinks.size);
      // A series' labels are kept until the aggregation ends: label_format output grown into
      // a label is paid for here, once per series.
      this.ctx.memory.charge(SERIES_OVERHEAD_BYTES + labels.key.length, 'series kept for aggregation');
    }
    return s;
  }
}

/** SCANNED_SERIES_HINT is the first capacity of a series' samples when streams come line by line (their lengths unknown). */
const SCANNED_SERIES_HINT = 256;

/**
 * ScannedStream is one stream's state while its lines are extracted: its pipeline, its series
 * when a line filter alone decides, and the literal filters its pipeline opens with, which the
 * store applies to its bytes before a line is visited.
 */
interface ScannedStream<S extends Sink> {
  sp: StreamPipeline;
  /** sink is the stream's one series when the pipeline is line filters only (lineOnly): its labels hold for every line. */
  sink: S | undefined;
  lines: LineMatch | undefined;
}

/**
 * runExtraction feeds every sample of the plan into `collector`. With `holdSamples` every
 * sample kept counts against the query's budget as it is added, so an oversized query fails
 * before it exhausts memory.
 *
 * Lines come in the order the reader keeps them where it can scan (LogLineScanner: a segment's
 * rows as they lie, across streams, which reads its message blocks sequentially), else stream
 * by stream from a select. Each stream keeps its own pipeline; a series' samples may then come
 * in several ascending runs, which its sink merges (SampleBuffer) or does not mind (windows).
 */
function runExtraction<S extends Sink>(
  ctx: EvalContext,
  plan: ExtractionPlan,
  baseNs: bigint,
  maxNs: bigint,
  collector: Collector<S>,
  holdSamples: boolean,
): void {
  const selector = plan.range.selector;
  // bytes_over_time measures the line line_format wrote; other sources drop a line_format
  // whose output nothing reads.
  // Streams without the labels its filters want equal to a text drop lines without the text first (prefilter.ts).
  const pipelines = textFiltered(
    selector.pipeline,
    (stages) =>
      new CompiledPipeline(stages, {
        noLabels: plan.noLabels,
        labelsRead: plan.labelsRead,
        preserveError: plan.preserveError,
        memory: ctx.memory,
        dropUnusedLineFormat: plan.source !== 'bytes',
      }),
  );
  const pipeline = pipelines.plain;
  // Counting lines through no pipeline reads no line: the reader may leave messages out.
  const lines = !(plan.source === 'count' && pipeline.stages.length === 0);
  const readsTimestamp = pipelines.readsTimestamp;
  const unwrap = plan.range.unwrap;
  const convert = converter(unwrap?.conversion);
  const postFilter = unwrap === undefined ? undefined : allOf(unwrap.postFilters);
  const lineOnly = plan.source !== 'unwrap' ? pipeline.lineOnly : undefined;
  const bytes = plan.source === 'bytes';
  let processed = 0;
  let kept = 0;
  let times: BigInt64Array | undefined;
  let time: OffsetReader | undefined;

  const open = (tags: Labels): ScannedStream<S> => {
    const sp = pipelines.forStream(tags, ctx.labelCache);
    const lines = pipelines.openingLinesFor(tags);
    if (lineOnly === undefined) return { sp, sink: undefined, lines };
    // Line filters never touch labels: the stream's (grouped) labels hold for every line.
    sp.labels.reset();
    return { sp, sink: collector.sink(sp.labels.grouped(plan.grouping), SCANNED_SERIES_HINT), lines };
  };
  /** counted counts a line for the abort checks and sets the time reader for its times; every line passes here once. */
  const counted = (lineTimes: BigInt64Array): void => {
    if (++processed % BATCH === 0) {
      ctx.checkAbort();
      if (holdSamples) ctx.holdSamples(kept);
      kept = 0;
    }
    if (lineTimes !== times) {
      times = lineTimes;
      time = new OffsetReader(lineTimes, baseNs);
    }
  };
  /** addSample adds the sample of a line the pipeline kept (`processedLine`, read for bytes only) to its series. */
  const addSample = (labels: LabelsBuilder, processedLine: string, at: number): void => {
    let value: number;
    if (plan.source === 'count') {
      value = 1;
    } else if (bytes) {
      value = utf8ByteLength(processedLine);
    } else {
      const raw = labels.get(unwrap!.label);
      if (raw === undefined || raw === '') return;
      const converted = convert(raw);
      if (converted.ok) {
        value = converted.value;
      } else {
        value = 0;
        labels.setError(SAMPLE_EXTRACTION_ERROR, converted.message);
      }
      if (postFilter !== undefined && !postFilter(labels)) return;
    }
    collector.sink(labels.grouped(plan.grouping), SCANNED_SERIES_HINT).add(time!.at(at), value);
    kept++;
  };
  const visit = (stream: ScannedStream<S>, line: string, lineTimes: BigInt64Array, at: number): void => {
    counted(lineTimes);
    if (stream.sink !== undefined) {
      if (!lineOnly!(line)) return;
      stream.sink.add(time!.at(at), bytes ? utf8ByteLength(line) : 1);
      kept++;
      return;
    }
    const sp = stream.sp;
    const processedLine = sp.process(readsTimestamp ? lineTimes[at] : UNREAD_TIMESTAMP, line);
    if (processedLine === null) return;
    addSample(sp.labels, processedLine, at);
  };
  // A pipeline whose filters and parser read stored ASCII bytes, for a sample that is not the line's size:
  // such lines never become strings (unless the parser hands one back to be read as text).
  const visitAscii: AsciiLineVisitor<ScannedStream<S>> | undefined =
    pipelines.readsAscii && !bytes && lineOnly === undefined
      ? (stream, line, lineTimes, at) => {
          const sp = stream.sp;
          const outcome = sp.processAscii(readsTimestamp ? lineTimes[at] : UNREAD_TIMESTAMP, line.bytes, line.start, line.end);
          if (outcome === ASCII_NEEDS_TEXT) {
            visit(stream, asciiText(line), lineTimes, at);
            return;
          }
          counted(lineTimes);
          if (outcome === ASCII_KEPT) addSample(sp.labels, '', at);
        }
      : undefined;

  const matchers = selector.matchers.map(matcherOf);
  ctx.checkAbort();
  if (lines && isLineScanner(ctx.reader)) ctx.reader.scanLines(matchers, baseNs + 1n, maxNs, open, visit, visitAscii, (stream) => stream.lines);
  else scanStreams(ctx.reader.select(matchers, baseNs + 1n, maxNs, { lines }), open, visit);
  if (holdSamples) ctx.holdSamples(kept);
}

/**
 * extractSamples selects the range's streams in (baseNs, maxNs] and returns the samples of
 * every output series, timestamps relative to `baseNs`. The samples are counted as held in
 * `ctx`; the caller releases them once it has aggregated them.
 */
export function extractSamples(ctx: EvalContext, plan: ExtractionPlan, baseNs: bigint, maxNs: bigint): SeriesSamples[] {
  const collector = new Collector<SampleBuffer>(ctx, (labels, hint) => new SampleBuffer(labels, Math.min(hint, 1 << 16)));
  runExtraction(ctx, plan, baseNs, maxNs, collector, true);
  const out: SeriesSamples[] = [];
  for (const buffer of collector.sinks.values()) out.push(buffer.finish());
  return out;
}

/**
 * extractWindows is extractSamples for additive aggregations: it returns, per series, how
 * many samples and what sum of values each step's window holds, never storing the samples.
 */
export function extractWindows(ctx: EvalContext, plan: ExtractionPlan, baseNs: bigint, maxNs: bigint, windows: StepWindows): SeriesWindows[] {
  const collector = new Collector<WindowAccumulator>(ctx, (labels) => {
    ctx.holdSamples(2 * windows.steps);
    return new WindowAccumulator(labels, windows);
  });
  if (!countDirectly(ctx, plan, baseNs, maxNs, windows, collector)) runExtraction(ctx, plan, baseNs, maxNs, collector, false);
  const out: SeriesWindows[] = [];
  for (const acc of collector.sinks.values()) out.push(acc.finish());
  return out;
}

/** isCountReader says whether a reader counts lines itself (views over segments and heads do; a bare select does not). */
function isCountReader(reader: LogReader): reader is LogReader & LogCountReader {
  return typeof (reader as Partial<LogCountReader>).countLines === 'function';
}

/**
 * literalLineFilters is a pipeline made only of literal substring filters (`|= "a"`, `!= "b"`,
 * `|= "c" or "d"`) as a LineMatch a store can apply to its stored bytes; anything else (a
 * regular expression, a pattern, `ip()`, any other stage) is undefined.
 */
function literalLineFilters(stages: readonly PipelineStage[]): LineMatch | undefined {
  const { match, count } = openingLiterals(stages);
  return count > 0 && count === stages.length ? match : undefined;
}

/**
 * countDirectly answers a count through no pipeline stage (what is left once unused stages
 * are dropped), or through literal substring filters only, from a reader that counts lines
 * itself: each source adds its lines into the series' count arrays, so no timestamp column
 * or merged run is ever built, and the filters search the stored bytes, so no line becomes a
 * string. Returns false when the plan or the reader does not allow it.
 */
function countDirectly(ctx: EvalContext, plan: ExtractionPlan, baseNs: bigint, maxNs: bigint, windows: StepWindows, collector: Collector<WindowAccumulator>): boolean {
  const reader = ctx.reader;
  if (plan.source !== 'count' || !isCountReader(reader)) return false;
  const selector = plan.range.selector;
  const pipeline = new CompiledPipeline(selector.pipeline, { noLabels: plan.noLabels, preserveError: plan.preserveError, memory: ctx.memory, dropUnusedLineFormat: true });
  const lines = pipeline.stages.length === 0 ? undefined : literalLineFilters(selector.pipeline);
  if (pipeline.stages.length !== 0 && lines === undefined) return false;
  reader.countLines(
    selector.matchers.map(matcherOf),
    baseNs + 1n,
    maxNs,
    { baseNs, ...windows },
    (tags) => {
      // As runExtraction's line-only branch: the stream's (grouped) labels hold for every line.
      const labels = pipeline.forStream(tags, ctx.labelCache).labels;
      labels.reset();
      const sink = collector.sink(labels.grouped(plan.grouping), 0);
      sink.countsOnly = true;
      return sink.countDiff;
    },
    () => ctx.checkAbort(),
    lines,
  );
  return true;
}
