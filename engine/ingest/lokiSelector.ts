/**
 * A strict parser for the stream label strings of Loki's protobuf push API, which carry a
 * stream's labels as a selector with equality matchers only: `{app="api", env="prod"}`.
 * Label names are Prometheus names (`[a-zA-Z_][a-zA-Z0-9_]*`) or, as Prometheus 3 allows,
 * quoted UTF-8 names (`{"service.name"="api"}`); values are Go string literals (double-quoted
 * with escapes, or backquoted raw). A trailing comma is accepted, as PromQL does. Anything else
 * (other operators, a missing brace, duplicates, no labels at all) is an error with the offset
 * where it was found.
 */
import { unquoteGoString } from '../common/quote.js';

/** SelectorParseResult is the labels in the order written, or why the text is not a selector. */
export type SelectorParseResult = { ok: true; labels: Array<[string, string]> } | { ok: false; message: string };

class SelectorError extends Error {}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 0x30 && c <= 0x39);
}

/** parseStreamSelector parses a Loki stream label string. */
export function parseStreamSelector(text: string): SelectorParseResult {
  try {
    return { ok: true, labels: new SelectorParser(text).parse() };
  } catch (err) {
    if (err instanceof SelectorError) return { ok: false, message: err.message };
    throw err;
  }
}

class SelectorParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parse(): Array<[string, string]> {
    const labels: Array<[string, string]> = [];
    const seen = new Set<string>();
    this.skipSpace();
    this.expect(0x7b, '"{"');
    this.skipSpace();
    while (this.peek() !== 0x7d) {
      const nameAt = this.pos;
      const name = this.labelName();
      this.skipSpace();
      if (this.peek() !== 0x3d || this.text.charCodeAt(this.pos + 1) === 0x7e) {
        this.fail(`expected "=" after label name ${JSON.stringify(name)} (only equality matchers describe a stream)`);
      }
      this.pos++;
      if (this.peek() === 0x3d) this.fail('expected "=", found "=="');
      this.skipSpace();
      const value = this.stringLiteral();
      if (seen.has(name)) this.fail(`duplicate label name ${JSON.stringify(name)}`, nameAt);
      seen.add(name);
      labels.push([name, value]);
      this.skipSpace();
      const c = this.peek();
      if (c === 0x2c) {
        this.pos++;
        this.skipSpace();
        continue;
      }
      if (c !== 0x7d) this.fail('expected "," or "}" after label value');
    }
    this.pos++;
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('unexpected text after "}"');
    if (labels.length === 0) this.fail('a stream needs at least one label', 0);
    return labels;
  }

  private peek(): number {
    if (this.pos >= this.text.length) this.fail('unexpected end of selector');
    return this.text.charCodeAt(this.pos);
  }

  private expect(c: number, what: string): void {
    if (this.peek() !== c) this.fail(`expected ${what}`);
    this.pos++;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private labelName(): string {
    const c = this.peek();
    if (c === 0x22 || c === 0x60) {
      const name = this.stringLiteral();
      if (name === '') this.fail('empty label name');
      return name;
    }
    if (!isNameStart(c)) this.fail('expected a label name');
    const start = this.pos;
    while (this.pos < this.text.length && isNameChar(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private stringLiteral(): string {
    const start = this.pos;
    const quote = this.peek();
    if (quote !== 0x22 && quote !== 0x60) this.fail('expected a quoted string');
    this.pos++;
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated string', start);
      const c = this.text.charCodeAt(this.pos);
      if (quote === 0x22 && c === 0x5c) {
        this.pos += 2;
        continue;
      }
      this.pos++;
      if (c === quote) break;
    }
    const result = unquoteGoString(this.text.slice(start, this.pos));
    if (!result.ok) this.fail(result.message, start + result.offset);
    return result.value;
  }

  private fail(message: string, at: number = this.pos): never {
    throw new SelectorError(`parse error at offset ${at}: ${message}`);
  }
}
