/**
 * Go's text/template as LogQL's `line_format` and `label_format` use it, with Loki's
 * function map: parse a template once per query, then execute it per line over the line's
 * labels. Everything outside this directory uses templates through this module only.
 */
export { parseTemplate } from './parser.js';
export type {
  Template,
  TemplateAction,
  TemplateBool,
  TemplateBranch,
  TemplateCommand,
  TemplateDot,
  TemplateField,
  TemplateFunction,
  TemplateLoopControl,
  TemplateNil,
  TemplateNode,
  TemplateNumber,
  TemplateOperand,
  TemplatePipeline,
  TemplateResult,
  TemplateString,
  TemplateSubPipeline,
  TemplateText,
  TemplateVariable,
} from './ast.js';
export { executeTemplate, simpleField, type TemplateProgram } from './executor.js';
export type { CallContext } from './functionDef.js';
export { GO_TEMPLATE_BUILTINS, LOKI_TEMPLATE_FUNCTIONS, TEMPLATE_FUNCTIONS } from './functionTable.js';
export { TemplateExecError, labelMap, type GoMap, type GoValue } from './values.js';
