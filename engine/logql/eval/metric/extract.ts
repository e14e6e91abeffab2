/**
 * Sample extraction: run a log range's pipeline over the selected streams and turn every
 * surviving line into a sample of its output series (the line's labels after the pipeline,
 * reduced by the aggregation's grouping). The value is 1 per line, the line's size in bytes,
 * or the unwrapped label converted to a number; a value that does not convert marks the
 * line `__error__="SampleExtractionErr"` as Loki does.
 */
import type { LabelFilterExpr, LogRangeExpr, UnwrapConversion } from '../../ast.js';
import type { LogStreamData } from '../../../storage/logHead.js';
import { matcherOf } from '../matchers.js';
import type { EvalContext } from '../context.js';
import { parseBytesValue, parseDurationValue, parseFloatValue, type Converted } from '../conversions.js';
import type { GroupingSpec, LabelsBuilder, ResultLabels } from '../labels-builder.js';
import { CompiledPipeline, withoutUnusedLineFormat } from '../pipeline/pipeline.js';
import { compileLabelPredicate, type LabelPredicate } from '../pipeline/label-filter.js';
import { utf8Length } from '../utf8.js';
import { relativeTimes } from './relative-time.js';

/** SAMPLE_EXTRACTION_ERROR is the `__error__` value of an unwrap that does not convert. */
export const SAMPLE_EXTRACTION_ERROR = 'SampleExtractionErr';

/** ValueSource is where a sample's value comes from. */
export type ValueSource = 'count' | 'bytes' | 'unwrap';

/** ExtractionPlan describes one log range's extraction. */
export interface ExtractionPlan {
  range: LogRangeExpr;
  source: ValueSource;
  grouping?: GroupingSpec;
  noLabels: boolean;
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

/**
 * SeriesBuffer grows one series' columns while streams are read. Each stream appends an
 * ascending run; when several streams feed one series the runs are merged at the end.
 */
class SeriesBuffer {
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

  push(t: number, v: number): void {
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
        runs = next[next.length - 1] === this.length ? next : [...next, this.length];
        [srcTs, dstTs] = [dstTs, srcTs];
        [srcValues, dstValues] = [dstValues, srcValues];
      }
      this.ts = srcTs;
      this.values = srcValues;
    }
    return { labels: this.labels, ts: this.ts, values: this.values, length: this.length };
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
      return parseFloatValue;
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

/**
 * extractSamples selects the range's streams in [minNs, maxNs] and returns the samples of
 * every output series, with timestamps relative to `baseNs`. The samples returned are
 * counted as held in `ctx`; the caller releases them once it has aggregated them.
 */
export function extractSamples(ctx: EvalContext, plan: ExtractionPlan, baseNs: bigint, minNs: bigint, maxNs: bigint): SeriesSamples[] {
  const selector = plan.range.selector;
  const streams = ctx.reader.select(selector.matchers.map(matcherOf), minNs, maxNs);
  const stages = plan.source === 'bytes' ? selector.pipeline : withoutUnusedLineFormat(selector.pipeline);
  const pipeline = new CompiledPipeline(stages, { noLabels: plan.noLabels, preserveError: plan.preserveError });
  const unwrap = plan.range.unwrap;
  const convert = converter(unwrap?.conversion);
  const postFilter = unwrap === undefined ? undefined : allOf(unwrap.postFilters);
  const buffers = new Map<string, SeriesBuffer>();
  let processed = 0;
  let selected = 0;

  for (const stream of streams) {
    ctx.checkAbort();
    const rel = relativeTimes(stream.timestampsNs, baseNs);
    ctx.holdSamples(stream.messages.length);
    selected += stream.messages.length;
    const sp = pipeline.forStream(stream.tags, ctx.labelCache);
    if (pipeline.lineOnly !== undefined && plan.source !== 'unwrap') {
      // Line filters never touch labels: the stream's (grouped) labels hold for every line.
      sp.labels.reset();
      extractLineOnly(ctx, pipeline.lineOnly, stream, rel, plan.source, sp.labels.grouped(plan.grouping), buffers);
      continue;
    }
    const labels = sp.labels;
    const messages = stream.messages;
    for (let i = 0; i < messages.length; i++) {
      if (++processed % BATCH === 0) ctx.checkAbort();
      if (pipeline.usesTimestamps) pipeline.context.timestampNs = stream.timestampsNs[i];
      const line = sp.process(messages[i]);
      if (line === null) continue;
      let value: number;
      if (plan.source === 'count') {
        value = 1;
      } else if (plan.source === 'bytes') {
        value = utf8Length(line);
      } else {
        const raw = labels.get(unwrap!.label);
        if (raw === undefined || raw === '') continue;
        const converted = convert(raw);
        if (converted.ok) {
          value = converted.value;
        } else {
          value = 0;
          labels.setError(SAMPLE_EXTRACTION_ERROR, converted.message);
        }
        if (postFilter !== undefined && !postFilter(labels)) continue;
      }
      push(ctx, buffers, labels, plan.grouping, rel[i], value, messages.length);
    }
  }
  // The lines are let go; the extracted samples stay held until the caller releases them.
  ctx.releaseSamples(selected);
  const out: SeriesSamples[] = [];
  let held = 0;
  for (const buffer of buffers.values()) {
    const samples = buffer.finish();
    held += samples.length;
    out.push(samples);
  }
  ctx.holdSamples(held);
  return out;
}

function push(
  ctx: EvalContext,
  buffers: Map<string, SeriesBuffer>,
  labels: LabelsBuilder,
  grouping: GroupingSpec | undefined,
  t: number,
  value: number,
  hint: number,
): void {
  const result = labels.grouped(grouping);
  let buffer = buffers.get(result.key);
  if (buffer === undefined) {
    buffer = new SeriesBuffer(result, Math.min(hint, 4096));
    buffers.set(result.key, buffer);
    ctx.checkSeries(buffers.size);
  }
  buffer.push(t, value);
}

/** extractLineOnly is the fast path for pipelines made only of line filters. */
function extractLineOnly(
  ctx: EvalContext,
  test: (line: string) => boolean,
  stream: LogStreamData,
  rel: Float64Array,
  source: 'count' | 'bytes',
  labels: ResultLabels,
  buffers: Map<string, SeriesBuffer>,
): void {
  let buffer = buffers.get(labels.key);
  if (buffer === undefined) {
    buffer = new SeriesBuffer(labels, stream.messages.length);
    buffers.set(labels.key, buffer);
    ctx.checkSeries(buffers.size);
  }
  const messages = stream.messages;
  if (source === 'count') {
    for (let i = 0; i < messages.length; i++) if (test(messages[i])) buffer.push(rel[i], 1);
    return;
  }
  for (let i = 0; i < messages.length; i++) {
    const line = messages[i];
    if (test(line)) buffer.push(rel[i], utf8Length(line));
  }
}
