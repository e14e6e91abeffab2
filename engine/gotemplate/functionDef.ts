/**
 * What a template function is to the executor: the Go type class of each parameter (so
 * arguments are converted and type-checked as Go's reflection-based calls do), its
 * implementation over Go values, and the per-line context some functions read.
 */
import type { GoValue } from './values.js';

/** ParamKind is the Go type class a parameter accepts. */
export type ParamKind = 'string' | 'int' | 'float' | 'any' | 'time' | 'bool';

/** CallContext gives per-line functions their line and timestamp. */
export interface CallContext {
  line(): string;
  timestampNs(): bigint;
}

/** TemplateFunctionDef describes one callable. */
export interface TemplateFunctionDef {
  params: readonly ParamKind[];
  /** variadic is the kind of any further arguments, when the function takes them. */
  variadic?: ParamKind;
  call(args: GoValue[], ctx: CallContext): GoValue;
}

/** CallError is an error a function returns; the executor reports it as "error calling f: …". */
export class CallError extends Error {}

/** FunctionRow is one function: its name and its definition, side by side. */
export type FunctionRow = readonly [name: string, definition: TemplateFunctionDef];

/** Parameter kinds, short so function rows stay one line. */
export const s = 'string' as const;
export const i = 'int' as const;
export const any = 'any' as const;
