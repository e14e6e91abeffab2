/**
 * A logfmt tokenizer with go-logfmt's rules as Loki adapted them: keys run to `=` or
 * whitespace, bare values to whitespace, quoted values use JSON escapes; a malformed pair is
 * skipped and remembered as the error `--strict` reports. Positions in messages are 1-based
 * byte offsets, as Loki prints them.
 */
import { utf8ByteLength } from '../../../common/utf8.js';
import { unescapeLogfmtValue } from '../../../common/jsonString.js';

const SPACE = 32;
const EQUALS = 61;
const QUOTE = 34;
const BACKSLASH = 92;

/** LogfmtDecoder walks one line's key/value pairs. */
export class LogfmtDecoder {
  private line = '';
  private pos = 0;
  /** key and value of the last pair scanned; value is '' when absent. */
  key = '';
  value = '';
  /** hasKey tells whether the last scan produced a key. */
  hasKey = false;
  /** error is the last syntax error met, or ''. */
  error = '';

  reset(line: string): void {
    this.line = line;
    this.pos = 0;
    this.error = '';
  }

  /** eol reports whether the whole line has been consumed. */
  eol(): boolean {
    return this.pos >= this.line.length;
  }

  private syntaxError(message: string, at: number): void {
    this.error = `logfmt syntax error at pos ${utf8ByteLength(this.line.slice(0, at)) + 1} : ${message}`;
  }

  private unexpected(c: number, at: number): void {
    this.syntaxError(`unexpected '${String.fromCharCode(c)}'`, at);
  }

  /** skipValue moves past the rest of a malformed pair. */
  private skipToSpace(): boolean {
    const line = this.line;
    const n = line.length;
    let p = this.pos;
    while (p < n && line.charCodeAt(p) > SPACE) p++;
    this.pos = p;
    return false;
  }

  /**
   * scan advances to the next pair. It returns false at the end of the line or for a
   * malformed pair (then `error` says why).
   */
  scan(): boolean {
    this.key = '';
    this.value = '';
    this.hasKey = false;
    const line = this.line;
    const n = line.length;
    let p = this.pos;
    while (p < n && line.charCodeAt(p) <= SPACE) p++;
    if (p >= n) {
      this.pos = n;
      return false;
    }
    const start = p;
    for (; p < n; p++) {
      const c = line.charCodeAt(p);
      if (c === EQUALS) {
        this.pos = p;
        if (p === start) {
          this.unexpected(c, p);
          return this.skipToSpace();
        }
        this.key = line.slice(start, p);
        this.hasKey = true;
        if (this.key.indexOf('\ufffd') >= 0) {
          this.syntaxError('invalid key', p);
          return this.skipToSpace();
        }
        return this.scanValue(p + 1);
      }
      if (c === QUOTE) {
        this.pos = p;
        this.unexpected(c, p);
        return this.skipToSpace();
      }
      if (c <= SPACE) {
        this.pos = p;
        this.key = line.slice(start, p);
        this.hasKey = true;
        if (this.key.indexOf('\ufffd') >= 0) {
          this.syntaxError('invalid key', p);
          this.hasKey = false;
          return false;
        }
        return true;
      }
    }
    this.pos = n;
    this.key = line.slice(start, n);
    this.hasKey = true;
    if (this.key.indexOf('\ufffd') >= 0) {
      this.syntaxError('invalid key', n);
      this.hasKey = false;
      return false;
    }
    return true;
  }

  private scanValue(at: number): boolean {
    const line = this.line;
    const n = line.length;
    this.pos = at;
    if (at >= n) return true;
    const first = line.charCodeAt(at);
    if (first <= SPACE) return true;
    if (first === QUOTE) return this.scanQuoted(at);
    for (let p = at; p < n; p++) {
      const c = line.charCodeAt(p);
      if (c === EQUALS || c === QUOTE) {
        this.pos = p;
        this.unexpected(c, p);
        return this.skipToSpace();
      }
      if (c <= SPACE) {
        this.pos = p;
        this.value = line.slice(at, p);
        return true;
      }
    }
    this.pos = n;
    this.value = line.slice(at, n);
    return true;
  }

  private scanQuoted(at: number): boolean {
    const line = this.line;
    const n = line.length;
    let escaped = false;
    let hasEscape = false;
    for (let p = at + 1; p < n; p++) {
      const c = line.charCodeAt(p);
      if (escaped) {
        escaped = false;
      } else if (c === BACKSLASH) {
        hasEscape = true;
        escaped = true;
      } else if (c === QUOTE) {
        this.pos = p + 1;
        if (!hasEscape) {
          this.value = line.slice(at + 1, p);
          return true;
        }
        const decoded = unescapeLogfmtValue(line.slice(at + 1, p));
        if (decoded === undefined) {
          this.syntaxError('invalid quoted value', p + 1);
          return false;
        }
        this.value = decoded;
        return true;
      }
    }
    this.pos = n;
    this.syntaxError('unterminated quoted value', n);
    return false;
  }
}

