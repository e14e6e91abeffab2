/**
 * An upper bound on a call's result length for the functions whose output can dwarf their
 * inputs, so the executor can refuse a call before it allocates past the memory budget.
 */
import type { GoValue } from './values.js';

/**
 * resultBound estimates from above how long a call's result will be, for the functions whose
 * output can be far larger than their inputs (a count, a width, an empty search string), so
 * a template cannot allocate gigabytes in one call before its output is checked.
 */
export function resultBound(name: string, args: readonly GoValue[]): number {
  const length = (v: GoValue): number => (typeof v === 'string' ? v.length : 0);
  const count = (v: GoValue): number => (typeof v === 'bigint' ? Math.max(0, Number(v)) : 0);
  switch (name) {
    case 'repeat':
      return count(args[0]) * length(args[1]);
    case 'indent':
    case 'nindent': {
      const text = typeof args[1] === 'string' ? args[1] : '';
      let lines = 1;
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
      return count(args[0]) * lines + text.length + 1;
    }
    case 'alignLeft':
    case 'alignRight':
      return count(args[0]) + length(args[1]);
    case 'replace':
      return args[0] === '' ? (length(args[2]) + 1) * (length(args[1]) + 1) : 0;
    case 'printf': {
      // Widths and precisions, written in the format or passed for `*`.
      let widest = 0;
      for (const m of length(args[0]) > 0 ? (args[0] as string).matchAll(/\d+/g) : []) widest = Math.max(widest, Number(m[0]));
      for (const a of args) widest = Math.max(widest, count(a));
      return widest;
    }
    default:
      return 0;
  }
}

