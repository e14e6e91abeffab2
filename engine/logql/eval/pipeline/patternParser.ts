/**
 * `| pattern "<ip> - <_> [<ts>]"`: the named captures become labels. A line that matches only
 * partly fills the leading captures, as Loki does.
 */
import type { PatternExpr } from '../../pattern.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { patternCaptures } from './patternMatch.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** PatternParser extracts named captures. */
export class PatternParser implements Stage {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  constructor(private readonly pattern: PatternExpr) {}

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (labels.noLabels) return line;
    const values = patternCaptures(this.pattern, line);
    const names = this.pattern.captures;
    for (let i = 0; i < values.length; i++) {
      const name = labels.baseHas(names[i]) ? names[i] + DUPLICATE_SUFFIX : names[i];
      if (labels.isExtracted(name)) continue;
      labels.set(name, values[i]);
    }
    return line;
  }
}
