/**
 * The template parser: builds the tree (ast.ts) from lexed items following text/template's
 * grammar and error wording: pipelines of commands joined by `|`, fields (`.a.b`), variables
 * (`$`, `$x := …`), literals, parenthesised pipelines, and the control actions if/else
 * if/else, with, range, break and continue. Calls are checked against the function table, so
 * an unknown function fails at parse time with its position, as in Loki.
 */
import { MAX_EXPRESSION_DEPTH } from '../common/depth.js';
import { unquoteGoString } from '../common/quote.js';
import type {
  Template,
  TemplateBranch,
  TemplateCommand,
  TemplateNode,
  TemplateOperand,
  TemplatePipeline,
  TemplateResult,
} from './ast.js';
import { TEMPLATE_FUNCTIONS } from './functionTable.js';
import { lexTemplate, type Item, type ItemType } from './lexer.js';
import { numberValue } from './numberLiteral.js';
import { TemplateSyntaxError, failSyntax } from './syntaxError.js';

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
    if (stop !== undefined) failSyntax(`unexpected {{${stop.text}}}`, stop.start);
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
            if (this.rangeDepth === 0) failSyntax(`{{${head.text}}} outside {{range}}`, head.start);
            const close = this.expectRightDelim(head.text);
            nodes.push({ kind: head.text, pos: { start: delim.start, end: close.end } });
            continue;
          }
          default:
            failSyntax(`{{${head.text}}} is not supported in LogQL templates`, head.start);
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
      failSyntax(`template nested too deeply: more than ${MAX_EXPRESSION_DEPTH} levels of {{if}}, {{with}}, {{range}} or parentheses`, item.start);
    }
    this.nesting++;
  }

  private expectRightDelim(context: string): Item {
    const item = this.nextNonSpace();
    if (item.type !== 'rightDelim') failSyntax(`unexpected ${this.describe(item)} in ${context}`, item.start);
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
    if (body.stop === undefined) failSyntax('unexpected EOF', this.peek().start);
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
        if (rest.stop === undefined) failSyntax('unexpected EOF', this.peek().start);
        if (rest.stop.text !== 'end') failSyntax(`expected end; found {{${rest.stop.text}}}`, rest.stop.start);
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
        if (second.type !== 'variable') failSyntax('range can only initialize variables', second.start);
        names.push(second);
        op = this.peekNonSpace();
      }
      if (op.type === 'declare' || op.type === 'assign') {
        this.nextNonSpace();
        isAssign = op.type === 'assign';
        for (const name of names) {
          if (isAssign && !this.isDefined(name.text)) failSyntax(`undefined variable ${JSON.stringify(name.text)}`, name.start);
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
        if (commands.length === 0) failSyntax(`missing value for ${context}`, item.start);
        for (let k = 1; k < commands.length; k++) {
          const head = commands[k].args[0];
          if (head.kind === 'bool' || head.kind === 'dot' || head.kind === 'nil' || head.kind === 'number' || head.kind === 'string') {
            failSyntax(`non executable command in pipeline stage ${k + 1}`, head.pos.start);
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
      if (!isOperandStart(item.type)) failSyntax(`unexpected ${this.describe(item)} in ${context}`, item.start);
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
      if (!isOperandStart(item.type)) failSyntax(`unexpected ${this.describe(item)} in operand`, item.start);
      args.push(this.operand());
      const after = this.peek();
      if (after.type !== 'space' && after.type !== endType && after.type !== 'pipe') {
        failSyntax(`unexpected ${this.describe(after)} in operand`, after.start);
      }
    }
    if (args[0].kind === 'nil') failSyntax('nil is not a command', args[0].pos.start);
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
        return failSyntax(`unexpected . after term ${JSON.stringify(this.textOf(term))}`, term.pos.end);
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
        if (!TEMPLATE_FUNCTIONS.has(item.text)) failSyntax(`function ${JSON.stringify(item.text)} not defined`, item.start);
        return { kind: 'function', name: item.text, pos };
      case 'dot':
        return { kind: 'dot', pos };
      case 'nil':
        return { kind: 'nil', pos };
      case 'bool':
        return { kind: 'bool', value: item.text === 'true', pos };
      case 'variable':
        if (!this.isDefined(item.text)) failSyntax(`undefined variable ${JSON.stringify(item.text)}`, item.start);
        return { kind: 'variable', name: item.text, path: [], pos };
      case 'field': {
        const name = item.text.slice(1);
        this.useLabel(name);
        return { kind: 'field', path: [name], pos };
      }
      case 'string':
      case 'rawString': {
        const decoded = unquoteGoString(item.text);
        if (!decoded.ok) failSyntax(decoded.message, item.start + decoded.offset);
        return { kind: 'string', value: decoded.value, pos };
      }
      case 'char': {
        const decoded = unquoteGoString(item.text);
        if (!decoded.ok || [...decoded.value].length !== 1) failSyntax(`malformed character constant: ${item.text}`, item.start);
        return { kind: 'number', value: decoded.value.codePointAt(0)!, text: item.text, pos };
      }
      case 'number': {
        const value = numberValue(item.text);
        if (value === undefined) failSyntax(`illegal number syntax: ${JSON.stringify(item.text)}`, item.start);
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
        return failSyntax(`unexpected ${this.describe(item)} in operand`, item.start);
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
