/**
 * Building a log pipeline from the parsed stages: line filters are moved ahead of any stage
 * that does not rewrite the line (they only read the line, so running them first changes
 * nothing but the cost), consecutive filters are fused into one test, and each stage is
 * compiled once per query. A StreamPipeline then runs the stages for one stream's lines.
 * What the stages read besides the line (its timestamp, labels for the parser hint) and
 * whether they rewrite or parse it comes from each Stage's own declaration (stage.ts).
 */
import type { LineMatch } from '../../../storage/lineMatch.js';
import { openingLineMatch } from './openingLiterals.js';
import type { PipelineStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { LabelCache } from '../labelsBuilder.js';
import { LabelsBuilder } from '../labelsBuilder.js';
import type { Labels } from '../../../storage/labels.js';
import { LineFilter, combineAsciiLineTests, combineLineTests, type AsciiLineTest } from './lineFilter.js';
import { LineFormat } from './formatStages.js';
import { compileStage } from './compileStage.js';
import { LabelFilter } from './labelFilter.js';
import { ASCII_DROPPED, ASCII_KEPT, ASCII_NEEDS_TEXT, isAsciiParser, type AsciiOutcome, type AsciiParser, type LineTest, type Stage, type ValueGate } from './stage.js';

export { ASCII_DROPPED, ASCII_KEPT, ASCII_NEEDS_TEXT, type AsciiOutcome };

/**
 * withoutUnusedLineFormat drops `line_format` stages whose output nothing reads, as Loki does
 * for metric queries that do not measure the line: a line_format matters only when a parser
 * or a line filter comes after it.
 */
export function withoutUnusedLineFormat(stages: readonly Stage[]): Stage[] {
  return stages.filter((stage, i) => {
    if (!(stage instanceof LineFormat)) return true;
    return stages.slice(i).some((later) => later.isParser || later instanceof LineFilter);
  });
}

/** reorderStages moves line filters to the front of each run of stages that keep the line. */
export function reorderStages(stages: readonly Stage[]): Stage[] {
  const out: Stage[] = [];
  let filters: Stage[] = [];
  let others: Stage[] = [];
  const flush = (): void => {
    out.push(...filters, ...others);
    filters = [];
    others = [];
  };
  for (const stage of stages) {
    if (stage instanceof LineFilter) {
      filters.push(stage);
    } else if (stage.rewritesLine) {
      others.push(stage);
      flush();
    } else {
      others.push(stage);
    }
  }
  flush();
  return out;
}

/** PipelineOptions tune how a pipeline is built. */
export interface PipelineOptions {
  /**
   * noLabels tells the pipeline that nothing after it reads a label (Loki's parser hint):
   * parsers then skip extraction, unless a stage of the pipeline itself reads a label.
   */
  noLabels?: boolean;
  /**
   * labelsRead are the only labels read after the pipeline (a metric query grouping by them):
   * with the labels the stages read, they are all parsers need to extract (Loki's
   * required-labels hint). Undefined: every label may be read.
   */
  labelsRead?: readonly string[];
  /** preserveError marks parser errors as preserved (a query grouping by __error__). */
  preserveError?: boolean;
  /** memory bounds what line_format and label_format may produce for one line. */
  memory?: MemoryBudget;
  /**
   * dropUnusedLineFormat leaves out the line_format stages whose output nothing reads (see
   * withoutUnusedLineFormat); the labels they read still count for the parser hint.
   */
  dropUnusedLineFormat?: boolean;
}

/** CompiledPipeline is a query's pipeline, ready to run over any stream. */
export class CompiledPipeline {
  readonly stages: readonly Stage[];
  /** requiredLabelNames are the labels the stages read, dropped line_format stages included. */
  readonly requiredLabelNames: ReadonlySet<string>;
  /**
   * readsTimestamp tells callers whether a stage reads the line's timestamp; when none does,
   * they may pass UNREAD_TIMESTAMP instead of reading a BigInt per line.
   */
  readonly readsTimestamp: boolean;
  /**
   * lineOnly is set when every stage is a line filter: the pipeline is then one test that
   * never touches labels, and callers can skip the label machinery entirely.
   */
  readonly lineOnly: LineTest | undefined;
  /**
   * readsAscii is set when lines held as ASCII bytes can go through processAscii: the
   * pipeline opens with line filters that test bytes (single literals) and then, or only, a
   * parser that reads bytes under this pipeline's hints, and no later stage reads the line.
   * Callers that read nothing of the line afterwards then never make its string.
   */
  readonly readsAscii: boolean;
  /**
   * openingLines is the literal line filters the pipeline opens with (openingLiterals.ts): a
   * store scanning lines for it may leave out those that fail them, unread.
   */
  readonly openingLines: LineMatch | undefined;
  /** asciiStages is how many leading stages run on the bytes (asciiStagesOf); 0 when the pipeline does not read bytes. */
  private readonly asciiStages: number;
  /** gate is the byte test of a label filter right after a parser that reads bytes (valueGateOf). */
  private readonly gate: ValueGate | undefined;
  /** noLabels is the parser hint streams get: see PipelineOptions.noLabels. */
  private readonly noLabels: boolean;
  /** wanted is the required-labels hint streams get: see PipelineOptions.labelsRead. */
  private readonly wanted: ReadonlySet<string> | undefined;
  private readonly preserveError: boolean;

  constructor(stages: readonly PipelineStage[], options: PipelineOptions = {}) {
    const built = stages.map((stage) => compileStage(stage, options.memory));
    const kept = options.dropUnusedLineFormat === true ? new Set(withoutUnusedLineFormat(built)) : undefined;
    const compiled: Stage[] = [];
    const dropped: Stage[] = [];
    let pendingTests: LineTest[] = [];
    let pendingAscii: (AsciiLineTest | undefined)[] = [];
    const flushTests = (): void => {
      if (pendingTests.length > 0) compiled.push(new LineFilter(combineLineTests(pendingTests), combineAsciiLineTests(pendingAscii)));
      pendingTests = [];
      pendingAscii = [];
    };
    for (const stage of reorderStages(built)) {
      if (stage instanceof LineFilter) {
        // Consecutive filters become one LineFilter stage, pushed by flushTests.
        pendingTests.push(stage.test);
        pendingAscii.push(stage.asciiTest);
        continue;
      }
      if (kept !== undefined && !kept.has(stage)) {
        dropped.push(stage);
        continue;
      }
      flushTests();
      compiled.push(stage);
    }
    flushTests();
    this.stages = compiled;
    const required = new Set<string>();
    for (const stage of [...compiled, ...dropped]) for (const name of stage.requiredLabelNames) required.add(name);
    this.requiredLabelNames = required;
    this.readsTimestamp = compiled.some((stage) => stage.readsTimestamp);
    this.noLabels = options.noLabels === true && required.size === 0;
    this.wanted = options.labelsRead === undefined || this.noLabels ? undefined : new Set([...options.labelsRead, ...required]);
    this.preserveError = options.preserveError === true;
    if (compiled.length === 0) this.lineOnly = () => true;
    else if (compiled.length === 1 && compiled[0] instanceof LineFilter) this.lineOnly = compiled[0].test;
    else this.lineOnly = undefined;
    this.asciiStages = asciiStagesOf(compiled, this.wanted, this.noLabels);
    this.readsAscii = this.asciiStages > 0;
    this.gate = valueGateOf(compiled, this.asciiStages);
    this.openingLines = openingLineMatch(stages);
  }

  /** forStream prepares the pipeline for one stream's labels. */
  forStream(tags: Labels, cache: LabelCache): StreamPipeline {
    return new StreamPipeline(this.stages, new LabelsBuilder(tags, cache, this.noLabels, this.preserveError, this.wanted), this.asciiStages, this.gate);
  }
}

/**
 * valueGateOf is the gate processAscii hands the parser: the byte test of the label filter
 * that follows a parser reading bytes, when there is one and it has such a test. Only the
 * stage right after the parser qualifies: a later one could read labels an earlier stage changed.
 */
function valueGateOf(stages: readonly Stage[], asciiStages: number): ValueGate | undefined {
  if (asciiStages === 0 || !isAsciiParser(stages[asciiStages - 1])) return undefined;
  const next = stages[asciiStages];
  return next instanceof LabelFilter ? next.valueGate : undefined;
}

/**
 * asciiStagesOf counts the leading stages that can run on a line's ASCII bytes (filters with a
 * byte test, then at most one parser that reads bytes under these hints), or 0 when a later
 * stage reads the line (it would need the text) or no stage runs on bytes.
 */
function asciiStagesOf(stages: readonly Stage[], wanted: ReadonlySet<string> | undefined, noLabels: boolean): number {
  let n = 0;
  while (n < stages.length) {
    const stage = stages[n];
    if (stage instanceof LineFilter && stage.asciiTest !== undefined) n++;
    else break;
  }
  const parser = stages[n];
  if (parser !== undefined && isAsciiParser(parser) && parser.readsAscii(wanted, noLabels)) n++;
  if (n === 0) return 0;
  for (let i = n; i < stages.length; i++) if (stages[i].readsLine) return 0;
  return n;
}

/** StreamPipeline runs a pipeline over the lines of one stream. */
export class StreamPipeline {
  constructor(
    private readonly stages: readonly Stage[],
    /** labels holds the current line's labels after process(). */
    readonly labels: LabelsBuilder,
    /** asciiStages is how many leading stages processAscii runs on the bytes. */
    private readonly asciiStages = 0,
    /** gate lets the parser drop a line the label filter after it would drop, before making its labels. */
    private readonly gate: ValueGate | undefined = undefined,
  ) {}

  /**
   * process returns the line after every stage, or null when a stage dropped it.
   * `timestampNs` is the line's time (UNREAD_TIMESTAMP when the pipeline reads none).
   */
  process(timestampNs: bigint, line: string): string | null {
    const labels = this.labels;
    labels.reset();
    const stages = this.stages;
    let current: string | null = line;
    for (let i = 0; i < stages.length; i++) {
      current = stages[i].process(timestampNs, current, labels);
      if (current === null) return null;
    }
    return current;
  }

  /**
   * processAscii runs the pipeline over a line held as the ASCII bytes[start, end), for a
   * pipeline that readsAscii: its leading filters and parser read the bytes, the others (which
   * do not read the line) run as process() runs them.
   */
  processAscii(timestampNs: bigint, bytes: Uint8Array, start: number, end: number): AsciiOutcome {
    const labels = this.labels;
    labels.reset();
    const stages = this.stages;
    const onBytes = this.asciiStages;
    for (let i = 0; i < onBytes; i++) {
      const stage = stages[i];
      if (stage instanceof LineFilter) {
        if (!stage.asciiTest!(bytes, start, end)) return ASCII_DROPPED;
      } else {
        const outcome = (stage as AsciiParser).processAscii(bytes, start, end, labels, this.gate);
        if (outcome !== ASCII_KEPT) return outcome;
      }
    }
    for (let i = onBytes; i < stages.length; i++) {
      if (stages[i].process(timestampNs, '', labels) === null) return ASCII_DROPPED;
    }
    return ASCII_KEPT;
  }
}
