/**
 * The shape of a PromQL function's implementation, as a row of the function table names it.
 * There are two: a window kernel, which the evaluator runs over every series of the range
 * argument (the hot loop stays in rangeFunctions.ts and the kernel), and a call evaluator,
 * which receives the whole call and evaluates its arguments itself. The evaluator resolves a
 * call's implementation once per evaluated call, never per step or per sample.
 */
import type { Call, Expr } from '../ast.js';
import type { StepGrid } from './grid.js';
import type { RangeKernel } from './kernels/types.js';
import type { NodeEvaluator, Value } from './value.js';

/** CallEvaluator evaluates a call whose arguments are already stripped of parentheses. */
export type CallEvaluator = (ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid) => Value;

/** WindowFunction computes one output series per input series from each step's window. */
export interface WindowFunction {
  readonly kind: 'window';
  readonly kernel: RangeKernel;
  /** keepsName: the function returns a sample as it was, so the metric name stays. */
  readonly keepsName: boolean;
  /** notesNonCounter: the function expects counters and notes names that do not look like one. */
  readonly notesNonCounter: boolean;
}

/** WholeCall evaluates the call as a whole (instant functions, and range functions across series). */
export interface WholeCall {
  readonly kind: 'call';
  readonly evaluate: CallEvaluator;
}

/** FunctionKernel is what the evaluator runs for a function. */
export type FunctionKernel = WindowFunction | WholeCall;

/** WindowOptions are the per-function details of a window kernel; both default to false. */
export interface WindowOptions {
  readonly keepsName?: boolean;
  readonly notesNonCounter?: boolean;
}

/** overWindows declares a function computed by a window kernel over its range argument. */
export function overWindows(kernel: RangeKernel, options: WindowOptions = {}): WindowFunction {
  return { kind: 'window', kernel, keepsName: options.keepsName ?? false, notesNonCounter: options.notesNonCounter ?? false };
}

/** wholeCall declares a function evaluated by `evaluate`. */
export function wholeCall(evaluate: CallEvaluator): WholeCall {
  return { kind: 'call', evaluate };
}
