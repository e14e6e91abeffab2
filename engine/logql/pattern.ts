/**
 * Loki's pattern language, used by `| pattern "<ip> - <user> [<_>]"` to extract labels and
 * by `|> "GET <_> 200"` to filter lines: `<name>` captures text, `<_>` skips it, everything
 * else is matched literally. A `<` that does not start a well-formed capture is literal.
 */
import type { PositionRange } from '../errors.js';

/** PatternLiteral is text matched exactly. */
export interface PatternLiteral {
  kind: 'literal';
  text: string;
  pos: PositionRange;
}

/** PatternCapture is `<name>`; the name `_` matches without extracting. */
export interface PatternCapture {
  kind: 'capture';
  name: string;
  pos: PositionRange;
}

/** PatternPart is one piece of a pattern, in order. */
export type PatternPart = PatternLiteral | PatternCapture;

/** PatternExpr is a parsed pattern; `captures` lists the named captures in order. */
export interface PatternExpr {
  parts: PatternPart[];
  captures: string[];
}

/** PatternMode selects the validation: extraction needs captures, line filters forbid names. */
export type PatternMode = 'parser' | 'line-filter';

/** PatternResult is the parsed pattern or an error with its offset in the pattern text. */
export type PatternResult =
  | { ok: true; pattern: PatternExpr }
  | { ok: false; message: string; offset: number };

const CAPTURE = /<([A-Za-z_][A-Za-z0-9_]*)>/y;

/** UNNAMED_CAPTURE is the capture that matches without extracting a label. */
export const UNNAMED_CAPTURE = '_';

/** splitPattern cuts `text` into literal and capture parts without validating them. */
function splitPattern(text: string): PatternPart[] {
  const parts: PatternPart[] = [];
  let literalStart = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '<') {
      CAPTURE.lastIndex = i;
      const m = CAPTURE.exec(text);
      if (m) {
        if (i > literalStart) {
          parts.push({ kind: 'literal', text: text.slice(literalStart, i), pos: { start: literalStart, end: i } });
        }
        parts.push({ kind: 'capture', name: m[1], pos: { start: i, end: i + m[0].length } });
        i += m[0].length;
        literalStart = i;
        continue;
      }
    }
    i++;
  }
  if (i > literalStart) {
    parts.push({ kind: 'literal', text: text.slice(literalStart, i), pos: { start: literalStart, end: i } });
  }
  return parts;
}

/**
 * parsePattern parses and validates `text` with Loki's rules. In `parser` mode there must be
 * at least one named capture and names must be unique; in `line-filter` mode only `<_>` may
 * appear. In both, two captures may not follow each other, since nothing would separate them.
 */
export function parsePattern(text: string, mode: PatternMode): PatternResult {
  const parts = splitPattern(text);
  const captures: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.kind !== 'capture') continue;
    const next = parts[i + 1];
    if (next !== undefined && next.kind === 'capture') {
      return {
        ok: false,
        message: `found consecutive capture '<${part.name}><${next.name}>': invalid expression`,
        offset: part.pos.start,
      };
    }
    if (part.name === UNNAMED_CAPTURE) continue;
    if (mode === 'line-filter') {
      return { ok: false, message: `named captures are not allowed: found '<${part.name}>'`, offset: part.pos.start };
    }
    if (captures.includes(part.name)) {
      return { ok: false, message: `duplicate capture name (${part.name}): invalid expression`, offset: part.pos.start };
    }
    captures.push(part.name);
  }
  if (mode === 'parser' && captures.length === 0) {
    return { ok: false, message: 'at least one capture is required', offset: 0 };
  }
  return { ok: true, pattern: { parts, captures } };
}
