/**
 * EngineError is the one error class the engine throws for failures a caller can act on.
 * Its `code` is one of the spec's error codes so the service maps it to an HTTP status with a
 * single table lookup, and `position` (when present) points into the query text so that
 * clients can underline the offending token.
 */
export type EngineErrorCode =
  | 'INVALID_EXPR'
  | 'COMPILE_ERROR'
  | 'REWRITE_UNSUPPORTED'
  | 'VALIDATION_FAILED'
  | 'DEADLINE_EXCEEDED'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL_ERROR';

/** PositionRange is a half-open range of UTF-16 offsets [start, end) into the query text. */
export interface PositionRange {
  start: number;
  end: number;
}

/** LineCol is a 1-based line and column, as editors and Prometheus print them. */
export interface LineCol {
  line: number;
  col: number;
}

/** lineColAt converts an offset into a 1-based line and column of `text`. */
export function lineColAt(text: string, offset: number): LineCol {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: end - lineStart + 1 };
}

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly position: PositionRange | undefined;

  constructor(code: EngineErrorCode, message: string, position?: PositionRange) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.position = position;
  }
}

/** ParseErrorDetail is one syntax error found while parsing, kept so all of them can be reported. */
export interface ParseErrorDetail {
  message: string;
  position: PositionRange;
}

/**
 * formatPositionedError renders `line:col: <kind> error: message` the way Prometheus prints
 * parse errors, so users of either system read the same shape.
 */
export function formatPositionedError(
  text: string,
  kind: 'parse' | 'type' | 'compile',
  detail: ParseErrorDetail,
): string {
  const { line, col } = lineColAt(text, detail.position.start);
  return `${line}:${col}: ${kind} error: ${detail.message}`;
}

/**
 * syntaxError builds the INVALID_EXPR error for the first of `details`, carrying all of them
 * in the message so a user fixing one mistake sees the next as well.
 */
export function syntaxError(text: string, details: ParseErrorDetail[]): EngineError {
  const lines = details.map((d) => formatPositionedError(text, 'parse', d));
  return new EngineError('INVALID_EXPR', lines.join('\n'), details[0]?.position);
}

/** compileError builds the COMPILE_ERROR for a query that parsed but cannot be evaluated. */
export function compileError(text: string, message: string, position: PositionRange): EngineError {
  return new EngineError(
    'COMPILE_ERROR',
    formatPositionedError(text, 'compile', { message, position }),
    position,
  );
}
