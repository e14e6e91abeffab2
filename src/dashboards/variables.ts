import { builtinKind, isBuiltinVariable, type BuiltinKind } from './builtinVariables.js';

/**
 * Variable references in dashboard text: `$name`, `${name}` and `${name:format}`, where a name
 * is letters, digits and `_`, not starting with a digit (so `$1` in a label_replace replacement
 * and `$` anchoring a regex are left alone). Names starting with `__` are Grafana's built-ins
 * (see builtinVariables.ts).
 */

/** VARIABLE_NAME is the rule every variable name follows. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/y;

/** ReferenceContext is where a reference sits in a query: inside quotes, inside `[...]`, or bare. */
export type ReferenceContext = 'quoted' | 'range' | 'bare';

export interface VariableReference {
  name: string;
  /** start and end are UTF-16 offsets of the whole reference, `$` and braces included. */
  start: number;
  end: number;
  context: ReferenceContext;
  /** format is the text after `:` in `${name:format}`; absent for the other forms. */
  format?: string;
}

/**
 * findVariableReferences lists the references in `text` in order, noting for each whether it
 * sits inside a quoted string (`"`, `'` or backquotes, with backslash escapes in the first
 * two), inside a `[...]` range, or bare in the expression.
 */
export function findVariableReferences(text: string): VariableReference[] {
  const out: VariableReference[] = [];
  let quote = '';
  let rangeDepth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\' && quote !== '`') {
        i++;
        continue;
      }
      if (c === quote) {
        quote = '';
        continue;
      }
    } else if (c === '"' || c === "'" || c === '`') {
      quote = c;
      continue;
    } else if (c === '[') {
      rangeDepth++;
      continue;
    } else if (c === ']') {
      if (rangeDepth > 0) rangeDepth--;
      continue;
    }
    if (c !== '$') continue;
    REFERENCE.lastIndex = i;
    const m = REFERENCE.exec(text);
    if (!m) continue;
    const context: ReferenceContext = quote !== '' ? 'quoted' : rangeDepth > 0 ? 'range' : 'bare';
    const ref: VariableReference = { name: m[1] ?? m[3], start: i, end: i + m[0].length, context };
    if (m[2] !== undefined) ref.format = m[2];
    out.push(ref);
    i += m[0].length - 1;
  }
  return out;
}

/** Substituted is a query with every variable replaced by a placeholder of the same length. */
export interface Substituted {
  text: string;
  references: VariableReference[];
  /** guessed is true when a placeholder stands bare in the expression, where its right form is a guess. */
  guessed: boolean;
}

/**
 * substitutePlaceholders makes a query checkable before anyone picks a value. Each reference
 * becomes a placeholder of exactly its own length, so positions in a parser's error still point
 * into the text the user wrote: letters inside quotes (any label value or regex), a duration
 * inside `[...]` (`${w}` -> `001m`), and an identifier elsewhere (`$metric` -> `_metric`).
 * A built-in is known to be a duration or a number, so it gets a duration (`offset $__interval`)
 * or digits (`/ $__range_s`) outside quotes, and that is no guess.
 */
export function substitutePlaceholders(text: string): Substituted {
  const references = findVariableReferences(text);
  if (references.length === 0) return { text, references, guessed: false };
  let out = '';
  let last = 0;
  let guessed = false;
  for (const ref of references) {
    const length = ref.end - ref.start;
    out += text.slice(last, ref.start);
    const builtin = builtinPlaceholderKind(ref);
    if (ref.context === 'quoted') out += 'x'.repeat(length);
    else if (builtin === 'number') out += '1'.repeat(length);
    else if (ref.context === 'range' || builtin === 'duration') out += '0'.repeat(length - 2) + '1m';
    else out += text.slice(ref.start, ref.end).replace(/[^A-Za-z0-9_]/g, '_');
    if (isGuess(ref)) guessed = true;
    last = ref.end;
  }
  out += text.slice(last);
  return { text: out, references, guessed };
}

/**
 * builtinPlaceholderKind is the kind of value a built-in reference stands for, or undefined
 * for a dashboard variable. An ISO date (`${__from:date}`) is text, not a number.
 */
function builtinPlaceholderKind(ref: VariableReference): BuiltinKind | undefined {
  if (!isBuiltinVariable(ref.name)) return undefined;
  if (ref.format !== undefined && ref.format !== 'date:seconds') return undefined;
  return builtinKind(ref.name);
}

/** isGuess says whether a reference's placeholder is a guess: bare in the expression, of unknown kind. */
export function isGuess(ref: VariableReference): boolean {
  return ref.context === 'bare' && builtinPlaceholderKind(ref) === undefined;
}
