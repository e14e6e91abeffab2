/**
 * Label name validity as Prometheus 3 checks it (model.UTF8Validation.IsValidLabelName): any
 * non-empty name that is valid UTF-8. Names come from string literals, whose byte escapes may
 * form invalid UTF-8 (`"\xff"`); see common/goBytes.ts for how such bytes are represented.
 */
import { isValidUtf8 } from '../common/goBytes.js';

/** isValidLabelName reports whether `name` may name a label: non-empty and valid UTF-8. */
export function isValidLabelName(name: string): boolean {
  return name.length > 0 && isValidUtf8(name);
}
