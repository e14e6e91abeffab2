/**
 * The error the lexer and parser raise. It is thrown from deep inside the recursive parser
 * and caught once by parseTemplate, which turns it into a result with the offset.
 */

/** TemplateSyntaxError carries a message and offset out of the recursive parser. */
export class TemplateSyntaxError {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

/** failSyntax throws a TemplateSyntaxError at `offset`. */
export function failSyntax(message: string, offset: number): never {
  throw new TemplateSyntaxError(message, offset);
}
