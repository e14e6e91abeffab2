/**
 * The Go text/template subset used by `line_format` and `label_format`, parsed into a small
 * tree once per query so the evaluator never re-reads template text per line. It follows
 * text/template's grammar and error wording: text and `{{actions}}`, `{{-`/`-}}` trim
 * markers, comments, pipelines of commands joined by `|`, fields (`.a.b`), variables (`$`,
 * `$x := …`), string/number/bool/nil literals, parenthesised pipelines, and the control
 * actions if/else if/else, with and range. Calls are checked against the function list Loki
 * installs, so an unknown function fails at parse time with its position, as in Loki.
 *
 * Offsets in this module are UTF-16 offsets into the template text.
 */
import { MAX_EXPRESSION_DEPTH } from '../common/depth.js';
import type { PositionRange } from '../errors.js';
import { unquoteGoString } from '../common/quote.js';
import { TEMPLATE_FUNCTIONS } from './template-functions.js';

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

// ---------------------------------------------------------------------------------------------
// Lexer

type ItemType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'identifier'
  | 'keyword'
  | 'field'
  | 'variable'
  | 'dot'
  | 'string'
  | 'rawString'
  | 'number'
  | 'char'
  | 'bool'
  | 'nil'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'declare'
  | 'assign'
  | 'comma'
  | 'eof';

interface Item {
  type: ItemType;
  text: string;
  start: number;
  end: number;
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue']);
const SPACE_CHARS = ' \t\r\n';

/** TemplateSyntaxError carries a message and offset out of the recursive parser. */
class TemplateSyntaxError {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

function fail(message: string, offset: number): never {
  throw new TemplateSyntaxError(message, offset);
}

function isSpaceChar(c: string | undefined): boolean {
  return c !== undefined && SPACE_CHARS.includes(c);
}

function isDecimalDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isAlnum(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c > '\x7f' && /[\p{L}\p{Nd}]/u.test(c);
}

function describeRune(c: string): string {
  const cp = c.codePointAt(0)!;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(c)}`;
}

/** lexTemplate splits the template into items, applying trim markers to the text as Go does. */
function lexTemplate(input: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNextText = false;
  const push = (type: ItemType, start: number, end: number): void => {
    items.push({ type, text: input.slice(start, end), start, end });
  };

  while (true) {
    const open = input.indexOf('{{', i);
    let textStart = i;
    let textEnd = open < 0 ? input.length : open;
    const leftTrim = open >= 0 && input[open + 2] === '-' && isSpaceChar(input[open + 3]);
    if (trimNextText) while (textStart < textEnd && isSpaceChar(input[textStart])) textStart++;
    if (leftTrim) while (textEnd > textStart && isSpaceChar(input[textEnd - 1])) textEnd--;
    if (textEnd > textStart) push('text', textStart, textEnd);
    if (open < 0) break;
    i = open + (leftTrim ? 4 : 2);

    if (input.startsWith('/*', i)) {
      const close = input.indexOf('*/', i + 2);
      if (close < 0) fail('unclosed comment', open);
      i = close + 2;
      const rightTrim = isSpaceChar(input[i]) && input[i + 1] === '-' && input.startsWith('}}', i + 2);
      if (!rightTrim && !input.startsWith('}}', i)) fail('comment ends before closing delimiter', open);
      i += rightTrim ? 4 : 2;
      trimNextText = rightTrim;
      continue;
    }
    push('leftDelim', open, i);

    let parenDepth = 0;
    while (true) {
      if (isSpaceChar(input[i]) && input[i + 1] === '-' && input.startsWith('}}', i + 2)) {
        if (parenDepth > 0) fail('unclosed left paren', i);
        push('rightDelim', i, i + 4);
        i += 4;
        trimNextText = true;
        break;
      }
      if (input.startsWith('}}', i)) {
        if (parenDepth > 0) fail('unclosed left paren', i);
        push('rightDelim', i, i + 2);
        i += 2;
        trimNextText = false;
        break;
      }
      if (i >= input.length) fail('unclosed action', open);
      const start = i;
      const c = input[i];
      if (isSpaceChar(c)) {
        while (isSpaceChar(input[i]) && !(input[i + 1] === '-' && input.startsWith('}}', i + 2))) i++;
        if (i === start) i++;
        push('space', start, i);
      } else if (c === '=') {
        push('assign', start, ++i);
      } else if (c === ':') {
        if (input[i + 1] !== '=') fail('expected :=', i);
        i += 2;
        push('declare', start, i);
      } else if (c === '|') {
        push('pipe', start, ++i);
      } else if (c === ',') {
        push('comma', start, ++i);
      } else if (c === '(') {
        parenDepth++;
        push('leftParen', start, ++i);
      } else if (c === ')') {
        parenDepth--;
        if (parenDepth < 0) fail(`unexpected right paren ${describeRune(c)}`, i);
        push('rightParen', start, ++i);
      } else if (c === '"') {
        i++;
        while (input[i] !== '"') {
          if (input[i] === undefined || input[i] === '\n') fail('unterminated quoted string', start);
          if (input[i] === '\\') i++;
          i++;
        }
        push('string', start, ++i);
      } else if (c === '`') {
        const close = input.indexOf('`', i + 1);
        if (close < 0) fail('unterminated raw quoted string', start);
        i = close + 1;
        push('rawString', start, i);
      } else if (c === "'") {
        i++;
        while (input[i] !== "'") {
          if (input[i] === undefined || input[i] === '\n') fail('unterminated character constant', start);
          if (input[i] === '\\') i++;
          i++;
        }
        push('char', start, ++i);
      } else if (c === '$') {
        i++;
        while (isAlnum(input[i])) i++;
        push('variable', start, i);
      } else if (c === '.' && !isDecimalDigit(input[i + 1])) {
        i++;
        if (isAlnum(input[i])) {
          while (isAlnum(input[i])) i++;
          push('field', start, i);
        } else {
          push('dot', start, i);
        }
      } else if (c === '+' || c === '-' || c === '.' || isDecimalDigit(c)) {
        i = scanTemplateNumber(input, i);
        const bare = i === start + 1 && (c === '+' || c === '-' || c === '.');
        if (bare || isAlnum(input[i])) {
          while (isAlnum(input[i]) || input[i] === '.') i++;
          fail(`bad number syntax: ${JSON.stringify(input.slice(start, i))}`, start);
        }
        push('number', start, i);
      } else if (isAlnum(c)) {
        while (isAlnum(input[i])) i++;
        const word = input.slice(start, i);
        const type: ItemType = KEYWORDS.has(word)
          ? 'keyword'
          : word === 'true' || word === 'false'
            ? 'bool'
            : word === 'nil'
              ? 'nil'
              : 'identifier';
        push(type, start, i);
      } else {
        const cp = String.fromCodePoint(input.codePointAt(i)!);
        fail(`unrecognized character in action: ${describeRune(cp)}`, i);
      }
    }
  }
  push('eof', input.length, input.length);
  return items;
}

/** scanTemplateNumber returns the end of a Go number literal (sign, base prefix, imaginary). */
function scanTemplateNumber(input: string, start: number): number {
  let i = start;
  if (input[i] === '+' || input[i] === '-') i++;
  let digits = /[0-9_]/;
  let exponent = /[eE]/;
  if (input[i] === '0' && /[xXoObB]/.test(input[i + 1] ?? '')) {
    const base = input[i + 1].toLowerCase();
    digits = base === 'x' ? /[0-9a-fA-F_]/ : base === 'o' ? /[0-7_]/ : /[01_]/;
    exponent = base === 'x' ? /[pP]/ : /$^/;
    i += 2;
  }
  while (i < input.length && digits.test(input[i])) i++;
  if (input[i] === '.') {
    i++;
    while (i < input.length && digits.test(input[i])) i++;
  }
  if (exponent.test(input[i] ?? '')) {
    let j = i + 1;
    if (input[j] === '+' || input[j] === '-') j++;
    if (input[j] >= '0' && input[j] <= '9') {
      i = j;
      while (input[i] >= '0' && input[i] <= '9') i++;
    }
  }
  if (input[i] === 'i') i++;
  return i;
}

/** numberValue converts a template number literal; undefined when Go would reject it. */
function numberValue(text: string): number | undefined {
  let body = text.replace(/_/g, '');
  let sign = 1;
  if (body[0] === '+' || body[0] === '-') {
    if (body[0] === '-') sign = -1;
    body = body.slice(1);
  }
  if (body.endsWith('i')) return undefined;
  let value: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(body)) value = parseInt(body.slice(2), 16);
  else if (/^0[oO][0-7]+$/.test(body)) value = parseInt(body.slice(2), 8);
  else if (/^0[bB][01]+$/.test(body)) value = parseInt(body.slice(2), 2);
  else if (/^0[0-7]+$/.test(body)) value = parseInt(body.slice(1), 8);
  else if (/^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(body)) value = Number(body);
  else return undefined;
  return sign * value;
}

// ---------------------------------------------------------------------------------------------
// Parser

/** TemplateParser builds the tree from items; see the module comment. */
class TemplateParser {
  private i = 0;
  /** scopes holds the variables visible at each nesting level; `$` is always defined. */
  private readonly scopes: Array<Set<string>> = [new Set(['$'])];
  private rangeDepth = 0;
  /** nesting counts the branches and parenthesised pipelines under way; see descend. */
  private nesting = 0;
  private readonly labels: string[] = [];
  /** labelSet mirrors `labels` for lookups, so many distinct fields stay linear. */
  private readonly labelSet = new Set<string>();

  constructor(private readonly items: Item[]) {}

  parse(): Template {
    const { nodes, stop } = this.list();
    if (stop !== undefined) fail(`unexpected {{${stop.text}}}`, stop.start);
    return { nodes, labels: this.labels };
  }

  private peek(): Item {
    return this.items[this.i];
  }

  private next(): Item {
    return this.items[this.i++];
  }

  private peekNonSpace(): Item {
    let j = this.i;
    while (this.items[j].type === 'space') j++;
    return this.items[j];
  }

  private nextNonSpace(): Item {
    while (this.peek().type === 'space') this.i++;
    return this.next();
  }

  private describe(item: Item): string {
    if (item.type === 'eof') return 'EOF';
    if (item.type === 'rightDelim') return '"}}"';
    return `<${item.text}>`;
  }

  /**
   * list parses nodes until `{{end}}`, `{{else}}` or the end of input, and returns the
   * keyword that stopped it (with its `{{`) so the caller decides whether that is allowed.
   */
  private list(): { nodes: TemplateNode[]; stop?: Item; stopDelim?: Item } {
    const nodes: TemplateNode[] = [];
    while (true) {
      const item = this.next();
      if (item.type === 'eof') {
        this.i--;
        return { nodes };
      }
      if (item.type === 'text') {
        // Text on both sides of a comment is one run of output.
        const previous = nodes[nodes.length - 1];
        if (previous !== undefined && previous.kind === 'text') {
          previous.text += item.text;
          previous.pos = { start: previous.pos.start, end: item.end };
        } else {
          nodes.push({ kind: 'text', text: item.text, pos: { start: item.start, end: item.end } });
        }
        continue;
      }
      const delim = item;
      const head = this.peekNonSpace();
      if (head.type === 'keyword') {
        this.nextNonSpace();
        switch (head.text) {
          case 'end':
          case 'else':
            return { nodes, stop: head, stopDelim: delim };
          case 'if':
          case 'with':
          case 'range':
            nodes.push(this.branch(head.text, delim));
            continue;
          case 'break':
          case 'continue': {
            if (this.rangeDepth === 0) fail(`{{${head.text}}} outside {{range}}`, head.start);
            const close = this.expectRightDelim(head.text);
            nodes.push({ kind: head.text, pos: { start: delim.start, end: close.end } });
            continue;
          }
          default:
            fail(`{{${head.text}}} is not supported in LogQL templates`, head.start);
        }
      }
      const pipeline = this.pipeline('command', 'rightDelim');
      const close = this.next();
      nodes.push({ kind: 'action', pipeline, pos: { start: delim.start, end: close.end } });
    }
  }

  /**
   * descend enters a nested branch or parenthesised pipeline at `item`. Parsing and executing
   * a template recurse once per level, so past MAX_EXPRESSION_DEPTH levels it fails there
   * rather than let a hostile template overflow the stack.
   */
  private descend(item: Item): void {
    if (this.nesting >= MAX_EXPRESSION_DEPTH) {
      fail(`template nested too deeply: more than ${MAX_EXPRESSION_DEPTH} levels of {{if}}, {{with}}, {{range}} or parentheses`, item.start);
    }
    this.nesting++;
  }

  private expectRightDelim(context: string): Item {
    const item = this.nextNonSpace();
    if (item.type !== 'rightDelim') fail(`unexpected ${this.describe(item)} in ${context}`, item.start);
    return item;
  }

  /** branch parses if/with/range after its keyword, through the matching `{{end}}`. */
  private branch(kind: 'if' | 'with' | 'range', delim: Item): TemplateBranch {
    this.descend(delim);
    this.scopes.push(new Set());
    const pipeline = this.pipeline(kind, 'rightDelim');
    this.next();
    if (kind === 'range') this.rangeDepth++;
    const body = this.list();
    if (kind === 'range') this.rangeDepth--;
    if (body.stop === undefined) fail('unexpected EOF', this.peek().start);
    let elseBody: TemplateNode[] | undefined;
    let end: Item;
    if (body.stop.text === 'else') {
      const afterElse = this.peekNonSpace();
      if ((kind === 'if' || kind === 'with') && afterElse.type === 'keyword' && afterElse.text === kind) {
        // {{else if x}} is {{else}}{{if x}}…{{end}}{{end}} sharing the one {{end}}.
        this.nextNonSpace();
        elseBody = [this.branch(kind, body.stopDelim!)];
        end = this.items[this.i - 1];
      } else {
        this.expectRightDelim('else');
        const rest = this.list();
        if (rest.stop === undefined) fail('unexpected EOF', this.peek().start);
        if (rest.stop.text !== 'end') fail(`expected end; found {{${rest.stop.text}}}`, rest.stop.start);
        end = this.expectRightDelim('end');
        elseBody = rest.nodes;
      }
    } else {
      end = this.expectRightDelim('end');
    }
    this.scopes.pop();
    this.nesting--;
    const node: TemplateBranch = { kind, pipeline, body: body.nodes, pos: { start: delim.start, end: end.end } };
    if (elseBody !== undefined) node.elseBody = elseBody;
    return node;
  }

  /** pipeline parses `[decl :=] command | command …` up to (not including) `endType`. */
  private pipeline(context: string, endType: ItemType): TemplatePipeline {
    const start = this.peekNonSpace().start;
    const declarations: string[] = [];
    let isAssign = false;
    const first = this.peekNonSpace();
    if (first.type === 'variable') {
      const save = this.i;
      this.nextNonSpace();
      const names = [first];
      let op = this.peekNonSpace();
      if (op.type === 'comma' && context === 'range') {
        this.nextNonSpace();
        const second = this.nextNonSpace();
        if (second.type !== 'variable') fail('range can only initialize variables', second.start);
        names.push(second);
        op = this.peekNonSpace();
      }
      if (op.type === 'declare' || op.type === 'assign') {
        this.nextNonSpace();
        isAssign = op.type === 'assign';
        for (const name of names) {
          if (isAssign && !this.isDefined(name.text)) fail(`undefined variable ${JSON.stringify(name.text)}`, name.start);
          declarations.push(name.text);
        }
      } else {
        this.i = save;
      }
    }
    const commands: TemplateCommand[] = [];
    while (true) {
      const item = this.peekNonSpace();
      if (item.type === endType) {
        if (commands.length === 0) fail(`missing value for ${context}`, item.start);
        for (let k = 1; k < commands.length; k++) {
          const head = commands[k].args[0];
          if (head.kind === 'bool' || head.kind === 'dot' || head.kind === 'nil' || head.kind === 'number' || head.kind === 'string') {
            fail(`non executable command in pipeline stage ${k + 1}`, head.pos.start);
          }
        }
        while (this.peek().type === 'space') this.i++;
        // Declared variables are visible from the end of their declaration on.
        for (const name of declarations) this.scopes[this.scopes.length - 1].add(name);
        const end = commands[commands.length - 1].pos.end;
        return { kind: 'pipeline', declarations, isAssign, commands, pos: { start, end } };
      }
      if (item.type === 'pipe' && commands.length > 0) {
        this.nextNonSpace();
        continue;
      }
      if (!isOperandStart(item.type)) fail(`unexpected ${this.describe(item)} in ${context}`, item.start);
      commands.push(this.command(endType));
    }
  }

  private isDefined(name: string): boolean {
    return this.scopes.some((scope) => scope.has(name));
  }

  /** command parses operands up to a `|` or the end of the pipeline. */
  private command(endType: ItemType): TemplateCommand {
    const args: TemplateOperand[] = [];
    const start = this.peekNonSpace().start;
    while (true) {
      while (this.peek().type === 'space') this.i++;
      const item = this.peek();
      if (item.type === endType || item.type === 'pipe') break;
      if (!isOperandStart(item.type)) fail(`unexpected ${this.describe(item)} in operand`, item.start);
      args.push(this.operand());
      const after = this.peek();
      if (after.type !== 'space' && after.type !== endType && after.type !== 'pipe') {
        fail(`unexpected ${this.describe(after)} in operand`, after.start);
      }
    }
    if (args[0].kind === 'nil') fail('nil is not a command', args[0].pos.start);
    return { kind: 'command', args, pos: { start, end: args[args.length - 1].pos.end } };
  }

  /** operand parses a term and any field chain after it. */
  private operand(): TemplateOperand {
    const term = this.term();
    const chain: string[] = [];
    let end = term.pos.end;
    while (this.peek().type === 'field') {
      const field = this.next();
      chain.push(field.text.slice(1));
      end = field.end;
    }
    if (chain.length === 0) return term;
    switch (term.kind) {
      case 'field':
      case 'variable':
      case 'subpipeline':
        if (term.kind === 'variable' && term.name === '$' && term.path.length === 0) this.useLabel(chain[0]);
        return { ...term, path: [...term.path, ...chain], pos: { start: term.pos.start, end } };
      default:
        return fail(`unexpected . after term ${JSON.stringify(this.textOf(term))}`, term.pos.end);
    }
  }

  private textOf(term: TemplateOperand): string {
    switch (term.kind) {
      case 'string':
        return JSON.stringify(term.value);
      case 'number':
        return term.text;
      case 'bool':
        return String(term.value);
      case 'nil':
        return 'nil';
      case 'dot':
        return '.';
      case 'function':
        return term.name;
      default:
        return '';
    }
  }

  private useLabel(name: string): void {
    if (this.labelSet.has(name)) return;
    this.labelSet.add(name);
    this.labels.push(name);
  }

  private term(): TemplateOperand {
    const item = this.next();
    const pos = { start: item.start, end: item.end };
    switch (item.type) {
      case 'identifier':
        if (!TEMPLATE_FUNCTIONS.has(item.text)) fail(`function ${JSON.stringify(item.text)} not defined`, item.start);
        return { kind: 'function', name: item.text, pos };
      case 'dot':
        return { kind: 'dot', pos };
      case 'nil':
        return { kind: 'nil', pos };
      case 'bool':
        return { kind: 'bool', value: item.text === 'true', pos };
      case 'variable':
        if (!this.isDefined(item.text)) fail(`undefined variable ${JSON.stringify(item.text)}`, item.start);
        return { kind: 'variable', name: item.text, path: [], pos };
      case 'field': {
        const name = item.text.slice(1);
        this.useLabel(name);
        return { kind: 'field', path: [name], pos };
      }
      case 'string':
      case 'rawString': {
        const decoded = unquoteGoString(item.text);
        if (!decoded.ok) fail(decoded.message, item.start + decoded.offset);
        return { kind: 'string', value: decoded.value, pos };
      }
      case 'char': {
        const decoded = unquoteGoString(item.text);
        if (!decoded.ok || [...decoded.value].length !== 1) fail(`malformed character constant: ${item.text}`, item.start);
        return { kind: 'number', value: decoded.value.codePointAt(0)!, text: item.text, pos };
      }
      case 'number': {
        const value = numberValue(item.text);
        if (value === undefined) fail(`illegal number syntax: ${JSON.stringify(item.text)}`, item.start);
        return { kind: 'number', value, text: item.text, pos };
      }
      case 'leftParen': {
        this.descend(item);
        const pipeline = this.pipeline('parenthesized pipeline', 'rightParen');
        this.nesting--;
        const close = this.next();
        return { kind: 'subpipeline', pipeline, path: [], pos: { start: item.start, end: close.end } };
      }
      default:
        return fail(`unexpected ${this.describe(item)} in operand`, item.start);
    }
  }
}

function isOperandStart(type: ItemType): boolean {
  switch (type) {
    case 'identifier':
    case 'field':
    case 'variable':
    case 'dot':
    case 'string':
    case 'rawString':
    case 'number':
    case 'char':
    case 'bool':
    case 'nil':
    case 'leftParen':
      return true;
    default:
      return false;
  }
}

/** parseTemplate parses `text` as a LogQL formatting template. */
export function parseTemplate(text: string): TemplateResult {
  try {
    const items = lexTemplate(text);
    return { ok: true, template: new TemplateParser(items).parse() };
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return { ok: false, message: err.message, offset: err.offset };
    throw err;
  }
}
