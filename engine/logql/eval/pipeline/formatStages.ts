/**
 * `| line_format "…"` and `| label_format a="…", b=c`: Go templates over the line's labels.
 * line_format replaces the line; label_format sets labels from templates or renames them.
 * A template that fails at run time leaves the line as it was and sets
 * `__error__="TemplateFormatErr"` with Go's message as details.
 */
import type { LabelFormatStage, LineFormatStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import {
  executeTemplate,
  labelMap,
  simpleField,
  TemplateExecError,
  type CallContext,
  type GoMap,
  type TemplateProgram,
} from '../../../gotemplate/index.js';
import type { Stage } from './stage.js';

/** TEMPLATE_FORMAT_ERROR is the `__error__` value of a failed template. */
export const TEMPLATE_FORMAT_ERROR = 'TemplateFormatErr';

/** labelsAsDot builds the template's dot: the line's labels, errors included. */
function labelsAsDot(labels: LabelsBuilder): GoMap {
  const { names, values } = labels.entries();
  const map = new Map<string, string>();
  for (let i = 0; i < names.length; i++) map.set(names[i], values[i]);
  return labelMap(map);
}

/**
 * StageCallContext answers the template functions that read the line being formatted
 * (`__line__`, `__timestamp__`). Each stage owns one and refills it at every process() call
 * from its own arguments, so no caller has anything to set beforehand.
 */
class StageCallContext implements CallContext {
  currentLine = '';
  currentTimestampNs = 0n;

  line(): string {
    return this.currentLine;
  }

  timestampNs(): bigint {
    return this.currentTimestampNs;
  }
}

/** LineFormat rewrites the line from a template. */
export class LineFormat implements Stage {
  /** requiredLabelNames are the labels the template reads through fields. */
  readonly requiredLabelNames: readonly string[];
  readonly readsTimestamp = true;
  readonly rewritesLine = true;
  readonly isParser = false;
  readonly readsLine = true;
  private readonly program: TemplateProgram;
  private readonly simpleKey: string | undefined;
  private readonly callContext = new StageCallContext();

  /** `memory` bounds what the template may produce for one line. */
  constructor(
    stage: LineFormatStage,
    private readonly memory: MemoryBudget | undefined,
  ) {
    this.program = { template: stage.parsed, source: stage.template, name: 'line' };
    this.simpleKey = simpleField(stage.parsed);
    this.requiredLabelNames = [...stage.parsed.labels];
  }

  process(timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (this.simpleKey !== undefined) return labels.get(this.simpleKey) ?? '';
    this.callContext.currentLine = line;
    this.callContext.currentTimestampNs = timestampNs;
    try {
      return executeTemplate(this.program, labelsAsDot(labels), this.callContext, this.memory);
    } catch (err) {
      if (!(err instanceof TemplateExecError)) throw err;
      labels.setError(TEMPLATE_FORMAT_ERROR, err.message);
      return line;
    }
  }
}

type LabelOperation = { rename: true; dst: string; src: string } | { rename: false; dst: string; program: TemplateProgram };

/** LabelFormat sets or renames labels. */
export class LabelFormat implements Stage {
  /** requiredLabelNames are the renamed labels and those the templates read. */
  readonly requiredLabelNames: readonly string[];
  readonly readsTimestamp = true;
  readonly rewritesLine = false;
  readonly isParser = false;
  readonly readsLine = true;
  private readonly operations: LabelOperation[];
  private readonly callContext = new StageCallContext();

  /** `memory` bounds what the templates may produce for one line. */
  constructor(
    stage: LabelFormatStage,
    private readonly memory: MemoryBudget | undefined,
  ) {
    this.operations = stage.operations.map((op) =>
      op.kind === 'LabelRename'
        ? { rename: true, dst: op.dst, src: op.src }
        : { rename: false, dst: op.dst, program: { template: op.parsed, source: op.template, name: 'label' } },
    );
    const read = new Set<string>();
    for (const op of stage.operations) {
      if (op.kind === 'LabelRename') read.add(op.src);
      else for (const name of op.parsed.labels) read.add(name);
    }
    this.requiredLabelNames = [...read];
  }

  process(timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    this.callContext.currentLine = line;
    this.callContext.currentTimestampNs = timestampNs;
    let dot: GoMap | undefined;
    for (const op of this.operations) {
      if (op.rename) {
        const value = labels.get(op.src);
        if (value !== undefined) {
          labels.set(op.dst, value);
          labels.del(op.src);
        }
        continue;
      }
      // Like Loki, every template of one stage sees the labels as they were at its first template.
      if (dot === undefined || dot.entries.size === 0) dot = labelsAsDot(labels);
      try {
        labels.set(op.dst, executeTemplate(op.program, dot, this.callContext, this.memory));
      } catch (err) {
        if (!(err instanceof TemplateExecError)) throw err;
        labels.setError(TEMPLATE_FORMAT_ERROR, err.message);
      }
    }
    return line;
  }
}
