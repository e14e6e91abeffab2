/**
 * The expressions of `| json name="expression"`: a path into the JSON document such as
 * `user.id`, `tags[0]` or `["key with spaces"].inner`, in the grammar of Loki's jsonexpr
 * package. Parsed at query parse time so the evaluator walks ready segments.
 */

/** JsonPathSegment is an object key (string) or an array index (number). */
export type JsonPathSegment = string | number;

/** JsonPathResult is the parsed path, or an error with its offset in the expression. */
export type JsonPathResult =
  | { ok: true; path: JsonPathSegment[] }
  | { ok: false; message: string; offset: number };

function isFieldStart(c: string | undefined): boolean {
  return c !== undefined && (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

function isFieldPart(c: string | undefined): boolean {
  return isFieldStart(c) || (c !== undefined && c >= '0' && c <= '9');
}

/**
 * parseJsonPath parses `expression`. A path starts with a field or a bracket access; fields
 * after the first are introduced by `.`; brackets hold a quoted key or a non-negative index.
 */
export function parseJsonPath(expression: string): JsonPathResult {
  const path: JsonPathSegment[] = [];
  let i = 0;
  const fail = (message: string, offset: number): JsonPathResult => ({
    ok: false,
    message: `cannot parse expression [${expression}]: syntax error: ${message}`,
    offset,
  });
  const skipSpace = (): void => {
    while (expression[i] === ' ' || expression[i] === '\t' || expression[i] === '\n') i++;
  };
  const readField = (): string => {
    const start = i;
    while (isFieldPart(expression[i])) i++;
    return expression.slice(start, i);
  };

  skipSpace();
  if (i >= expression.length) return fail('unexpected end of expression', i);
  while (true) {
    skipSpace();
    if (i >= expression.length) break;
    const c = expression[i];
    if (path.length === 0 && isFieldStart(c)) {
      path.push(readField());
    } else if (c === '.' && path.length > 0) {
      i++;
      skipSpace();
      if (!isFieldStart(expression[i])) {
        return fail(i >= expression.length ? 'unexpected end of expression' : `unexpected ${JSON.stringify(expression[i])}`, i);
      }
      path.push(readField());
    } else if (c === '[') {
      i++;
      skipSpace();
      const inner = expression[i];
      if (inner === '"') {
        const close = expression.indexOf('"', i + 1);
        if (close < 0) return fail('unterminated key', i);
        path.push(expression.slice(i + 1, close));
        i = close + 1;
      } else if (inner !== undefined && inner >= '0' && inner <= '9') {
        const start = i;
        while (expression[i] !== undefined && expression[i] >= '0' && expression[i] <= '9') i++;
        if (expression[i] === '.') return fail('cannot use float as array index', i);
        path.push(Number(expression.slice(start, i)));
      } else {
        return fail(inner === undefined ? 'unexpected end of expression' : `unexpected ${JSON.stringify(inner)}`, i);
      }
      skipSpace();
      if (expression[i] !== ']') {
        return fail(i >= expression.length ? 'unexpected end of expression, expecting ]' : `unexpected ${JSON.stringify(expression[i])}, expecting ]`, i);
      }
      i++;
    } else {
      return fail(`unexpected ${JSON.stringify(c)}`, i);
    }
  }
  return { ok: true, path };
}
