/**
 * `| drop a, b="v"`: names are always removed, `name op "value"` only where the value
 * matches. Dropping `__error__` or `__error_details__` clears the line's error, which is how
 * a query deliberately ignores failures.
 */
import type { LabelMatcher, LabelName } from '../../ast.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { ERROR_DETAILS_LABEL, ERROR_LABEL } from '../labelsBuilder.js';
import { labelSpecs, type LabelSpec } from './labelSpecs.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** DropLabels removes labels. */
export class DropLabels implements Stage {
  private readonly specs: LabelSpec[];
  /**
   * Dropping reads no label a parser must provide: a label no parser extracted is absent
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

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    for (const { name, test } of this.specs) {
      if (name === ERROR_LABEL) {
        if (test === undefined || test(labels.error())) labels.clearError();
        continue;
      }
      if (name === ERROR_DETAILS_LABEL) {
        if (test === undefined || test(labels.errorDetails())) labels.clearErrorDetails();
        continue;
      }
      const value = labels.get(name);
      if (test === undefined) {
        if (value !== undefined) labels.del(name);
      } else if (test(value ?? '')) {
        labels.del(name);
      }
    }
    return line;
  }
}
