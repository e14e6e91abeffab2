/**
 * `| line_format "…"` and `| label_format a="…", b=c`: Go templates over the line's labels.
 * line_format replaces the line; label_format sets labels from templates or renames them.
 * A template that fails at run time leaves the line as it was and sets
 * `__error__="TemplateFormatErr"` with Go's message as details.
 */
import type { LabelFormatStage, LineFormatStage } from '../../ast.js';
import type { LabelsBuilder } from '../labels-builder.js';
import {
  executeTemplate,
  labelMap,
  simpleField,
  TemplateExecError,
  type CallContext,
  type GoMap,
  type TemplateProgram,
} from '../../../gotemplate/index.js';
import type { LineContext, Stage } from './stage.js';

/** TEMPLATE_FORMAT_ERROR is the `__error__` value of a failed template. */
export const TEMPLATE_FORMAT_ERROR = 'TemplateFormatErr';

/** labelsAsDot builds the template's dot: the line's labels, errors included. */
function labelsAsDot(labels: LabelsBuilder): GoMap {
  const { names, values } = labels.entries();
  const map = new Map<string, string>();
  for (let i = 0; i < names.length; i++) map.set(names[i], values[i]);
  return labelMap(map);
}

class StageCallContext implements CallContext {
  currentLine = '';

  constructor(private readonly lineContext: LineContext) {}

  line(): string {
    return this.currentLine;
  }

  timestampNs(): bigint {
    return this.lineContext.timestampNs;
  }
}

/** LineFormat rewrites the line from a template. */
export class LineFormat implements Stage {
  private readonly program: TemplateProgram;
  private readonly simpleKey: string | undefined;
  private readonly callContext: StageCallContext;

  constructor(
    stage: LineFormatStage,
    private readonly lineContext: LineContext,
  ) {
    this.program = { template: stage.parsed, source: stage.template, name: 'line' };
    this.simpleKey = simpleField(stage.parsed);
    this.callContext = new StageCallContext(lineContext);
  }

  process(line: string, labels: LabelsBuilder): string | null {
    if (this.simpleKey !== undefined) return labels.get(this.simpleKey) ?? '';
    this.callContext.currentLine = line;
    try {
      return executeTemplate(this.program, labelsAsDot(labels), this.callContext, this.lineContext.memory);
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
  private readonly operations: LabelOperation[];
  private readonly callContext: StageCallContext;

  constructor(
    stage: LabelFormatStage,
    private readonly lineContext: LineContext,
  ) {
    this.operations = stage.operations.map((op) =>
      op.kind === 'LabelRename'
        ? { rename: true, dst: op.dst, src: op.src }
        : { rename: false, dst: op.dst, program: { template: op.parsed, source: op.template, name: 'label' } },
    );
    this.callContext = new StageCallContext(lineContext);
  }

  process(line: string, labels: LabelsBuilder): string | null {
    this.callContext.currentLine = line;
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
        labels.set(op.dst, executeTemplate(op.program, dot, this.callContext, this.lineContext.memory));
      } catch (err) {
        if (!(err instanceof TemplateExecError)) throw err;
        labels.setError(TEMPLATE_FORMAT_ERROR, err.message);
      }
    }
    return line;
  }
}
