/**
 * `| regexp "(?P<name>re)"`: the named groups of the first match become labels. A line the
 * expression does not match is kept unchanged; a named group that did not take part in the
 * match yields an empty label, as in Loki.
 */
import { compileRegex } from '../../../regex/index.js';
import type { Regex } from '../../../regex/index.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { sanitizeLabelKey } from './sanitize.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** RegexpParser extracts named groups. */
export class RegexpParser implements Stage {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  private readonly regex: Regex;
  /** groups pairs a group index with its label name. */
  private readonly groups: Array<{ index: number; name: string }> = [];

  constructor(pattern: string) {
    this.regex = compileRegex(pattern);
    this.regex.groupNames.forEach((name, index) => {
      if (name !== undefined && name !== '') this.groups.push({ index, name: sanitizeLabelKey(name) });
    });
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (labels.noLabels) return line;
    const m = this.regex.execIndices(line);
    if (m === null) return line;
    for (const { index, name: base } of this.groups) {
      const name = labels.baseHas(base) ? base + DUPLICATE_SUFFIX : base;
      if (labels.isExtracted(name)) continue;
      const start = m[2 * index];
      labels.set(name, start >= 0 ? line.slice(start, m[2 * index + 1]) : '');
    }
    return line;
  }
}
