/**
 * `| keep a, b="v"`: every label not listed (or whose value does not match) is removed.
 * The error labels are never removed by keep, so a failure still surfaces.
 */
import type { LabelMatcher, LabelName } from '../../ast.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { ERROR_DETAILS_LABEL, ERROR_LABEL, PRESERVE_ERROR_LABEL } from '../labelsBuilder.js';
import { labelSpecs, type LabelSpec } from './labelSpecs.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** KeepLabels removes every label it is not told to keep. */
export class KeepLabels implements Stage {
  private readonly specs: LabelSpec[];
  /**
   * Keeping reads no label a parser must provide: a label no parser extracted is absent
   * either way, and nothing after the pipeline reads the labels when the hint applies.
   */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = false;
  readonly readsLine = false;

  constructor(labels: ReadonlyArray<LabelName | LabelMatcher>) {
    this.specs = labelSpecs(labels);
  }

  private keeps(name: string, value: string): boolean {
    for (const spec of this.specs) {
      if (spec.name !== name) continue;
      if (spec.test === undefined || spec.test(value)) return true;
    }
    return false;
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (this.specs.length === 0) return line;
    const { names, values } = labels.entries();
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name === ERROR_LABEL || name === ERROR_DETAILS_LABEL || name === PRESERVE_ERROR_LABEL) continue;
      if (!this.keeps(name, values[i])) labels.del(name);
    }
    return line;
  }
}
