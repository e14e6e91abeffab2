/**
 * The tree a parsed template becomes: nodes of a body (text, actions, branches, loop
 * control), the pipelines inside actions and the operands of their commands. The parser
 * builds it once per query so the executor never re-reads template text per line.
 *
 * Offsets in positions are UTF-16 offsets into the template text.
 */
import type { PositionRange } from '../errors.js';

/** TemplateField is `.a.b`: a label lookup (only the first name matters for labels). */
export interface TemplateField {
  kind: 'field';
  path: string[];
  pos: PositionRange;
}

/** TemplateDot is `.`, the whole label map. */
export interface TemplateDot {
  kind: 'dot';
  pos: PositionRange;
}

/** TemplateVariable is `$` or `$name`, optionally followed by fields (`$.a`). */
export interface TemplateVariable {
  kind: 'variable';
  name: string;
  path: string[];
  pos: PositionRange;
}

/** TemplateFunction names a function; first in a command it is called with the rest as arguments. */
export interface TemplateFunction {
  kind: 'function';
  name: string;
  pos: PositionRange;
}

/** TemplateString is a quoted or raw string literal, decoded. */
export interface TemplateString {
  kind: 'string';
  value: string;
  pos: PositionRange;
}

/** TemplateNumber is a number or character constant; `text` keeps the literal as written. */
export interface TemplateNumber {
  kind: 'number';
  value: number;
  text: string;
  pos: PositionRange;
}

/** TemplateBool is `true` or `false`. */
export interface TemplateBool {
  kind: 'bool';
  value: boolean;
  pos: PositionRange;
}

/** TemplateNil is `nil`. */
export interface TemplateNil {
  kind: 'nil';
  pos: PositionRange;
}

/** TemplateSubPipeline is `(pipeline)`, optionally followed by fields of its result. */
export interface TemplateSubPipeline {
  kind: 'subpipeline';
  pipeline: TemplatePipeline;
  path: string[];
  pos: PositionRange;
}

/** TemplateOperand is one argument of a command. */
export type TemplateOperand =
  | TemplateField
  | TemplateDot
  | TemplateVariable
  | TemplateFunction
  | TemplateString
  | TemplateNumber
  | TemplateBool
  | TemplateNil
  | TemplateSubPipeline;

/** TemplateCommand is a function call or a single value; its result feeds the next command. */
export interface TemplateCommand {
  kind: 'command';
  args: TemplateOperand[];
  pos: PositionRange;
}

/**
 * TemplatePipeline is `[$x :=] cmd | cmd …`; the previous command's result is passed as the
 * last argument of the next. `declarations` name the variables set (`isAssign` for `=`).
 */
export interface TemplatePipeline {
  kind: 'pipeline';
  declarations: string[];
  isAssign: boolean;
  commands: TemplateCommand[];
  pos: PositionRange;
}

/** TemplateText is literal output, with trim markers already applied. */
export interface TemplateText {
  kind: 'text';
  text: string;
  pos: PositionRange;
}

/** TemplateAction is `{{pipeline}}`: its value is printed unless it declares a variable. */
export interface TemplateAction {
  kind: 'action';
  pipeline: TemplatePipeline;
  pos: PositionRange;
}

/**
 * TemplateBranch is `{{if}}`, `{{with}}` or `{{range}}` with its body and optional else body.
 * `{{else if …}}` is stored as an else body holding one nested branch, as Go does.
 */
export interface TemplateBranch {
  kind: 'if' | 'with' | 'range';
  pipeline: TemplatePipeline;
  body: TemplateNode[];
  elseBody?: TemplateNode[];
  pos: PositionRange;
}

/** TemplateLoopControl is `{{break}}` or `{{continue}}` inside a range. */
export interface TemplateLoopControl {
  kind: 'break' | 'continue';
  pos: PositionRange;
}

/** TemplateNode is one node of a template body. */
export type TemplateNode = TemplateText | TemplateAction | TemplateBranch | TemplateLoopControl;

/**
 * Template is a parsed template. `labels` lists the label names it reads through fields,
 * in first-use order, so a pipeline knows which labels a formatter depends on.
 */
export interface Template {
  nodes: TemplateNode[];
  labels: string[];
}

/** TemplateResult is a parsed template or the first error with its offset. */
export type TemplateResult = { ok: true; template: Template } | { ok: false; message: string; offset: number };
