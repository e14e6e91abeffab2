/**
 * The executor of parsed templates (ast.ts), with Go text/template semantics: pipelines pass
 * each command's result as the last argument of the next, fields read the label map (a
 * missing label is ""), variables are scoped to their block, if/with test Go truth, range
 * walks slices, maps and integers, and every runtime failure is a TemplateExecError worded
 * like Go's ("template: line:1:2: executing "line" at <…>: …").
 */
import { memoryBudgetExceeded, type MemoryBudget } from '../common/memoryBudget.js';
import type { Template, TemplateCommand, TemplateNode, TemplateOperand, TemplatePipeline } from './ast.js';
import { CallError, type CallContext, type ParamKind } from './functionDef.js';
import { TEMPLATE_FUNCTION_DEFS } from './functionTable.js';
import { printValue } from './print.js';
import { resultBound } from './resultBound.js';
import { isTime, timeMethod } from './timeMethods.js';
import type { GoValue } from './values.js';
import { TemplateExecError, isTrue, typeName } from './values.js';

/** TemplateProgram is a parsed template with what error messages need. */
export interface TemplateProgram {
  template: Template;
  /** source is the template text (positions index into it). */
  source: string;
  /** name is "line" for line_format and "label" for label_format, as Loki names them. */
  name: string;
}

class LoopBreak {}
class LoopContinue {}

const KIND_NAMES: Record<ParamKind, string> = {
  string: 'string',
  int: 'int',
  float: 'float64',
  any: 'interface {}',
  time: 'time.Time',
  bool: 'bool',
};

/** MISSING marks "no final value" in a pipeline. */
const MISSING = Symbol('missing');
type Final = GoValue | typeof MISSING;

/** Executor runs one template once. */
class Executor {
  private out = '';
  private readonly vars: Array<{ name: string; value: GoValue }> = [];
  /** limit is the longest output (and call result) the query's memory budget still allows. */
  private readonly limit: number;

  constructor(
    private readonly program: TemplateProgram,
    private readonly ctx: CallContext,
    private readonly memory: MemoryBudget | undefined,
  ) {
    this.limit = memory === undefined ? Number.POSITIVE_INFINITY : memory.available;
  }

  /** tooLarge fails the query (not the line): its template output outgrew the memory budget. */
  private tooLarge(): never {
    throw memoryBudgetExceeded(this.memory!.limitBytes, `${this.program.name === 'line' ? 'line_format' : 'label_format'} output`);
  }

  private append(text: string): void {
    this.out += text;
    if (this.out.length > this.limit) this.tooLarge();
  }

  run(dot: GoValue): string {
    this.vars.push({ name: '$', value: dot });
    this.walk(this.program.template.nodes, dot);
    return this.out;
  }

  private fail(at: { start: number; end: number }, message: string): never {
    const src = this.program.source;
    const before = src.slice(0, at.start);
    const lastNl = before.lastIndexOf('\n');
    const line = before.split('\n').length;
    const col = lastNl < 0 ? at.start : at.start - lastNl - 1;
    const context = src.slice(at.start, at.end);
    throw new TemplateExecError(`template: ${this.program.name}:${line}:${col}: executing "${this.program.name}" at <${context}>: ${message}`);
  }

  private walk(nodes: readonly TemplateNode[], dot: GoValue): void {
    for (const node of nodes) {
      switch (node.kind) {
        case 'text':
          this.append(node.text);
          break;
        case 'action': {
          const value = this.pipeline(node.pipeline, dot);
          if (node.pipeline.declarations.length === 0) this.append(value === null ? '<no value>' : printValue(value));
          break;
        }
        case 'if':
        case 'with': {
          const mark = this.vars.length;
          const value = this.pipeline(node.pipeline, dot);
          if (isTrue(value)) this.walk(node.body, node.kind === 'with' ? value : dot);
          else if (node.elseBody !== undefined) this.walk(node.elseBody, dot);
          this.vars.length = mark;
          break;
        }
        case 'range':
          this.range(node.pipeline, node.body, node.elseBody, dot);
          break;
        case 'break':
          throw new LoopBreak();
        case 'continue':
          throw new LoopContinue();
      }
    }
  }

  private range(pipeline: TemplatePipeline, body: readonly TemplateNode[], elseBody: readonly TemplateNode[] | undefined, dot: GoValue): void {
    const mark = this.vars.length;
    const value = this.evalCommands(pipeline, dot);
    const pairs: Array<[GoValue, GoValue]> = [];
    if (value !== null && typeof value === 'object' && value.kind === 'slice') {
      value.items.forEach((item, k) => pairs.push([BigInt(k), item]));
    } else if (value !== null && typeof value === 'object' && value.kind === 'map') {
      for (const key of [...value.entries.keys()].sort()) pairs.push([key, value.entries.get(key) ?? null]);
    } else if (typeof value === 'bigint') {
      for (let k = 0n; k < value; k++) pairs.push([k, k]);
    } else if (value !== null) {
      this.fail(pipeline.pos, `range can't iterate over ${printValue(value)}`);
    }
    if (pairs.length === 0) {
      if (elseBody !== undefined) this.walk(elseBody, dot);
      this.vars.length = mark;
      return;
    }
    const decls = pipeline.declarations;
    for (const [key, item] of pairs) {
      const iterMark = this.vars.length;
      if (decls.length === 1) this.vars.push({ name: decls[0], value: typeof value === 'bigint' ? key : item });
      else if (decls.length === 2) this.vars.push({ name: decls[0], value: key }, { name: decls[1], value: item });
      try {
        this.walk(body, item);
      } catch (signal) {
        if (signal instanceof LoopBreak) {
          this.vars.length = iterMark;
          break;
        }
        if (!(signal instanceof LoopContinue)) throw signal;
      }
      this.vars.length = iterMark;
    }
    this.vars.length = mark;
  }

  /** evalCommands runs a pipeline's commands without handling its declarations. */
  private evalCommands(pipeline: TemplatePipeline, dot: GoValue): GoValue {
    let final: Final = MISSING;
    for (const command of pipeline.commands) final = this.command(command, dot, final);
    return final === MISSING ? null : final;
  }

  private pipeline(pipeline: TemplatePipeline, dot: GoValue): GoValue {
    const value = this.evalCommands(pipeline, dot);
    for (const name of pipeline.declarations) {
      if (pipeline.isAssign) this.setVar(name, value);
      else this.vars.push({ name, value });
    }
    return value;
  }

  private setVar(name: string, value: GoValue): void {
    for (let k = this.vars.length - 1; k >= 0; k--) {
      if (this.vars[k].name === name) {
        this.vars[k].value = value;
        return;
      }
    }
  }

  private varValue(name: string, at: { start: number; end: number }): GoValue {
    for (let k = this.vars.length - 1; k >= 0; k--) if (this.vars[k].name === name) return this.vars[k].value;
    return this.fail(at, `undefined variable: ${name}`);
  }

  private command(command: TemplateCommand, dot: GoValue, final: Final): GoValue {
    const [head, ...rest] = command.args;
    switch (head.kind) {
      case 'function':
        return this.call(head.name, rest, dot, final, head.pos);
      case 'field':
        return this.fieldChain(dot, head.path, rest, dot, final, head.pos);
      case 'variable':
        return this.fieldChain(this.varValue(head.name, head.pos), head.path, rest, dot, final, head.pos);
      case 'subpipeline':
        return this.fieldChain(this.evalCommands(head.pipeline, dot), head.path, rest, dot, final, head.pos);
      default:
        if (rest.length > 0 || final !== MISSING) this.fail(head.pos, `can't give argument to non-function ${this.program.source.slice(head.pos.start, head.pos.end)}`);
        return this.constant(head, dot);
    }
  }

  /** constant is a command made of one value: any operand but nil, which Go refuses to run. */
  private constant(operand: TemplateOperand, dot: GoValue): GoValue {
    if (operand.kind === 'nil') return this.fail(operand.pos, 'nil is not a command');
    return this.operandValue(operand, dot);
  }

  private idealNumber(text: string, value: number): GoValue {
    const isRune = text.startsWith("'");
    const isHexInt = /^[+-]?0[xX]/.test(text) && !/[pP]/.test(text);
    if (!isRune && !isHexInt && /[.eEpP]/.test(text)) return value;
    if (Number.isInteger(value)) return BigInt(value);
    return value;
  }

  /** fieldChain walks `.a.b` from `receiver`; args (and the piped value) go to a final method. */
  private fieldChain(
    receiver: GoValue,
    path: readonly string[],
    argNodes: readonly TemplateOperand[],
    dot: GoValue,
    final: Final,
    at: { start: number; end: number },
  ): GoValue {
    if (path.length === 0) {
      if (argNodes.length > 0 || final !== MISSING) this.fail(at, `can't give argument to non-function ${this.program.source.slice(at.start, at.end)}`);
      return receiver;
    }
    let value = receiver;
    for (let k = 0; k < path.length; k++) {
      const name = path[k];
      const last = k === path.length - 1;
      const hasArgs = last && (argNodes.length > 0 || final !== MISSING);
      if (value !== null && typeof value === 'object' && value.kind === 'map') {
        if (hasArgs) this.fail(at, `${name} is not a method but has arguments`);
        value = value.entries.has(name) ? (value.entries.get(name) ?? null) : value.zero;
        continue;
      }
      if (isTime(value)) {
        const args = last ? argNodes.map((a) => this.operandValue(a, dot)) : [];
        if (last && final !== MISSING) args.push(final);
        const result = timeMethod(value, name, args);
        if (result === undefined) this.fail(at, `can't evaluate field ${name} in type time.Time`);
        value = result;
        continue;
      }
      if (value === null) this.fail(at, `nil data; no entry for key ${JSON.stringify(name)}`);
      this.fail(at, `can't evaluate field ${name} in type ${typeName(value)}`);
    }
    return value;
  }

  /** operandValue evaluates an argument with no expected type (an interface{} parameter). */
  private operandValue(operand: TemplateOperand, dot: GoValue): GoValue {
    switch (operand.kind) {
      case 'field':
        return this.fieldChain(dot, operand.path, [], dot, MISSING, operand.pos);
      case 'variable':
        return this.fieldChain(this.varValue(operand.name, operand.pos), operand.path, [], dot, MISSING, operand.pos);
      case 'subpipeline':
        return this.fieldChain(this.evalCommands(operand.pipeline, dot), operand.path, [], dot, MISSING, operand.pos);
      case 'function':
        return this.call(operand.name, [], dot, MISSING, operand.pos);
      case 'dot':
        return dot;
      case 'bool':
        return operand.value;
      case 'string':
        return operand.value;
      case 'number':
        return this.idealNumber(operand.text, operand.value);
      case 'nil':
        return null;
    }
  }

  /** typedArg evaluates an argument for a parameter of kind `kind`, as Go's evalArg. */
  private typedArg(operand: TemplateOperand, kind: ParamKind, dot: GoValue): GoValue {
    if (kind === 'any') return this.operandValue(operand, dot);
    switch (operand.kind) {
      case 'number': {
        if (kind === 'int') {
          if (!/^[+-]?(?:0[xXoObB])?[0-9a-fA-F_]+$/.test(operand.text) && !operand.text.startsWith("'")) {
            this.fail(operand.pos, `expected integer; found ${operand.text}`);
          }
          return BigInt(operand.value);
        }
        if (kind === 'float') return operand.value;
        return this.fail(operand.pos, `expected ${KIND_NAMES[kind]}; found ${operand.text}`);
      }
      case 'string':
        if (kind !== 'string') this.fail(operand.pos, `expected ${kind === 'int' ? 'integer' : KIND_NAMES[kind]}; found ${JSON.stringify(operand.value)}`);
        return operand.value;
      case 'bool':
        if (kind !== 'bool') this.fail(operand.pos, `expected ${KIND_NAMES[kind]}; found ${operand.value}`);
        return operand.value;
      case 'nil':
        return this.fail(operand.pos, `cannot assign nil to ${KIND_NAMES[kind]}`);
      default:
        return this.checkType(this.operandValue(operand, dot), kind, operand.pos);
    }
  }

  private checkType(value: GoValue, kind: ParamKind, at: { start: number; end: number }): GoValue {
    let ok: boolean;
    switch (kind) {
      case 'any':
        ok = true;
        break;
      case 'string':
        ok = typeof value === 'string';
        break;
      case 'int':
        ok = typeof value === 'bigint';
        break;
      case 'float':
        ok = typeof value === 'number';
        break;
      case 'bool':
        ok = typeof value === 'boolean';
        break;
      case 'time':
        ok = isTime(value);
        break;
    }
    if (!ok) {
      if (value === null) this.fail(at, `invalid value; expected ${KIND_NAMES[kind]}`);
      this.fail(at, `wrong type for value; expected ${KIND_NAMES[kind]}; got ${typeName(value)}`);
    }
    return value;
  }

  private call(name: string, argNodes: readonly TemplateOperand[], dot: GoValue, final: Final, at: { start: number; end: number }): GoValue {
    const total = argNodes.length + (final === MISSING ? 0 : 1);
    if (name === 'and' || name === 'or') {
      if (total === 0) this.fail(at, `wrong number of args for ${name}: want at least 1 got 0`);
      let value: GoValue = null;
      for (const node of argNodes) {
        value = this.operandValue(node, dot);
        if (isTrue(value) !== (name === 'and')) return value;
      }
      if (final !== MISSING) value = final;
      return value;
    }
    const def = TEMPLATE_FUNCTION_DEFS.get(name);
    if (def === undefined) return this.fail(at, `"${name}" is not a defined function`);
    const fixed = def.params.length;
    if (def.variadic === undefined ? total !== fixed : total < fixed) {
      this.fail(at, `wrong number of args for ${name}: want ${def.variadic === undefined ? '' : 'at least '}${fixed} got ${total}`);
    }
    const args: GoValue[] = [];
    for (let k = 0; k < argNodes.length; k++) {
      const kind = k < fixed ? def.params[k] : (def.variadic ?? 'any');
      args.push(this.typedArg(argNodes[k], kind, dot));
    }
    if (final !== MISSING) {
      const k = argNodes.length;
      const kind = k < fixed ? def.params[k] : (def.variadic ?? 'any');
      args.push(this.checkType(final, kind, at));
    }
    if (resultBound(name, args) > this.limit) this.tooLarge();
    let result: GoValue;
    try {
      result = def.call(args, this.ctx);
    } catch (err) {
      if (err instanceof CallError) this.fail(at, `error calling ${name}: ${err.message}`);
      // A string past the engine's own limit: the output was far beyond any budget.
      if (err instanceof RangeError && this.memory !== undefined) this.tooLarge();
      throw err;
    }
    if (typeof result === 'string' && result.length > this.limit) this.tooLarge();
    return result;
  }
}

/**
 * executeTemplate runs `program` over `dot`, returning the output or throwing TemplateExecError.
 * With `memory`, the output may not grow past what the budget has left: it is checked as it is
 * produced, and past it the query fails with RESOURCE_EXHAUSTED.
 */
export function executeTemplate(program: TemplateProgram, dot: GoValue, ctx: CallContext, memory?: MemoryBudget): string {
  return new Executor(program, ctx, memory).run(dot);
}

/**
 * simpleField returns the label name when the template is exactly `{{.name}}`, which needs no
 * execution at all (Loki short-cuts the same case).
 */
export function simpleField(template: Template): string | undefined {
  if (template.nodes.length !== 1) return undefined;
  const node = template.nodes[0];
  if (node.kind !== 'action' || node.pipeline.declarations.length > 0 || node.pipeline.commands.length !== 1) return undefined;
  const args = node.pipeline.commands[0].args;
  if (args.length !== 1 || args[0].kind !== 'field' || args[0].path.length !== 1) return undefined;
  return args[0].path[0];
}
