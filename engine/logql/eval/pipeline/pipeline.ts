/**
 * Building a log pipeline from the parsed stages: line filters are moved ahead of any stage
 * that does not rewrite the line (they only read the line, so running them first changes
 * nothing but the cost), consecutive filters are fused into one test, and each stage is
 * compiled once per query. A StreamPipeline then runs the stages for one stream's lines.
 */
import type { LineFilterStage, PipelineStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { LabelCache } from '../labels-builder.js';
import { LabelsBuilder } from '../labels-builder.js';
import type { Labels } from '../../../storage/labels.js';
import { Decolorize } from './decolorize.js';
import { DropLabels } from './drop-labels.js';
import { LabelFormat, LineFormat } from './format-stages.js';
import { JsonExpressionParser, JsonParser } from './json-parser.js';
import { KeepLabels } from './keep-labels.js';
import { LabelFilter, compileLabelPredicate, filterLabelNames } from './label-filter.js';
import { LineFilter, combineLineTests, compileLineTest } from './line-filter.js';
import { LogfmtExpressionParser, LogfmtParser } from './logfmt-parser.js';
import { PatternParser } from './pattern-parser.js';
import { RegexpParser } from './regexp-parser.js';
import type { LineContext, LineTest, Stage } from './stage.js';
import { UnpackParser } from './unpack-parser.js';

/** rewritesLine tells whether a stage can change the line (so filters may not move past it). */
function rewritesLine(stage: PipelineStage): boolean {
  return stage.kind === 'LineFormat' || stage.kind === 'UnpackParser' || stage.kind === 'Decolorize';
}

function isParser(stage: PipelineStage): boolean {
  switch (stage.kind) {
    case 'JsonParser':
    case 'LogfmtParser':
    case 'RegexpParser':
    case 'PatternParser':
    case 'UnpackParser':
      return true;
    default:
      return false;
  }
}

/**
 * withoutUnusedLineFormat drops `line_format` stages whose output nothing reads, as Loki does
 * for metric queries that do not measure the line: a line_format matters only when a parser
 * or a line filter comes after it.
 */
export function withoutUnusedLineFormat(stages: readonly PipelineStage[]): PipelineStage[] {
  return stages.filter((stage, i) => {
    if (stage.kind !== 'LineFormat') return true;
    return stages.slice(i).some((later) => isParser(later) || later.kind === 'LineFilter');
  });
}

/** reorderStages moves line filters to the front of each run of stages that keep the line. */
export function reorderStages(stages: readonly PipelineStage[]): PipelineStage[] {
  const out: PipelineStage[] = [];
  let filters: PipelineStage[] = [];
  let others: PipelineStage[] = [];
  const flush = (): void => {
    out.push(...filters, ...others);
    filters = [];
    others = [];
  };
  for (const stage of stages) {
    if (stage.kind === 'LineFilter') {
      filters.push(stage);
    } else if (rewritesLine(stage)) {
      others.push(stage);
      flush();
    } else {
      others.push(stage);
    }
  }
  flush();
  return out;
}

/** requiredLabelNames lists the labels the stages read, for Loki's "no labels needed" hint. */
export function requiredLabelNames(stages: readonly PipelineStage[]): Set<string> {
  const out = new Set<string>();
  for (const stage of stages) {
    switch (stage.kind) {
      case 'LabelFilterStage':
        filterLabelNames(stage.filter, out);
        break;
      case 'LineFormat':
        for (const name of stage.parsed.labels) out.add(name);
        break;
      case 'LabelFormat':
        for (const op of stage.operations) {
          if (op.kind === 'LabelRename') out.add(op.src);
          else for (const name of op.parsed.labels) out.add(name);
        }
        break;
      default:
        break;
    }
  }
  return out;
}

function compileStage(stage: PipelineStage, context: LineContext): Stage {
  switch (stage.kind) {
    case 'LineFilter':
      return new LineFilter(compileLineTest(stage));
    case 'JsonParser':
      return stage.extractions.length > 0 ? new JsonExpressionParser(stage.extractions) : new JsonParser();
    case 'LogfmtParser':
      return stage.extractions.length > 0
        ? new LogfmtExpressionParser(stage.extractions, stage.strict)
        : new LogfmtParser(stage.strict, stage.keepEmpty);
    case 'RegexpParser':
      return new RegexpParser(stage.regex);
    case 'PatternParser':
      return new PatternParser(stage.parsed);
    case 'UnpackParser':
      return new UnpackParser();
    case 'LabelFilterStage':
      return new LabelFilter(compileLabelPredicate(stage.filter));
    case 'LineFormat':
      return new LineFormat(stage, context);
    case 'LabelFormat':
      return new LabelFormat(stage, context);
    case 'DropLabels':
      return new DropLabels(stage.labels);
    case 'KeepLabels':
      return new KeepLabels(stage.labels);
    case 'Decolorize':
      return new Decolorize();
  }
}

/** PipelineOptions tune how a pipeline is built. */
export interface PipelineOptions {
  /** noLabels tells parsers no extracted label is ever read (Loki's parser hint). */
  noLabels?: boolean;
  /** preserveError marks parser errors as preserved (a query grouping by __error__). */
  preserveError?: boolean;
  /** memory bounds what line_format and label_format may produce for one line. */
  memory?: MemoryBudget;
}

/** CompiledPipeline is a query's pipeline, ready to run over any stream. */
export class CompiledPipeline {
  /** context is where callers put the current line's timestamp before processing it. */
  readonly context: LineContext;
  readonly stages: readonly Stage[];
  /** usesTimestamps tells callers whether stages read the line's timestamp. */
  readonly usesTimestamps: boolean;
  /**
   * lineOnly is set when every stage is a line filter: the pipeline is then one test that
   * never touches labels, and callers can skip the label machinery entirely.
   */
  readonly lineOnly: LineTest | undefined;
  private readonly options: PipelineOptions;

  constructor(stages: readonly PipelineStage[], options: PipelineOptions = {}) {
    this.context = { timestampNs: 0n, memory: options.memory };
    const ordered = reorderStages(stages);
    const compiled: Stage[] = [];
    let pendingTests: LineTest[] = [];
    const flushTests = (): void => {
      if (pendingTests.length > 0) compiled.push(new LineFilter(combineLineTests(pendingTests)));
      pendingTests = [];
    };
    for (const stage of ordered) {
      if (stage.kind === 'LineFilter') {
        pendingTests.push(compileLineTest(stage as LineFilterStage));
        continue;
      }
      flushTests();
      compiled.push(compileStage(stage, this.context));
    }
    flushTests();
    this.stages = compiled;
    this.usesTimestamps = ordered.some((s) => s.kind === 'LineFormat' || s.kind === 'LabelFormat');
    this.options = options;
    if (compiled.length === 0) this.lineOnly = () => true;
    else if (compiled.length === 1 && compiled[0] instanceof LineFilter) this.lineOnly = compiled[0].test;
    else this.lineOnly = undefined;
  }

  /** forStream prepares the pipeline for one stream's labels. */
  forStream(tags: Labels, cache: LabelCache): StreamPipeline {
    return new StreamPipeline(this.stages, new LabelsBuilder(tags, cache, this.options.noLabels, this.options.preserveError));
  }
}

/** StreamPipeline runs a pipeline over the lines of one stream. */
export class StreamPipeline {
  constructor(
    private readonly stages: readonly Stage[],
    /** labels holds the current line's labels after process(). */
    readonly labels: LabelsBuilder,
  ) {}

  /** process returns the line after every stage, or null when a stage dropped it. */
  process(line: string): string | null {
    const labels = this.labels;
    labels.reset();
    const stages = this.stages;
    let current: string | null = line;
    for (let i = 0; i < stages.length; i++) {
      current = stages[i].process(current, labels);
      if (current === null) return null;
    }
    return current;
  }
}
