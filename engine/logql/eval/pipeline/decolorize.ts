/**
 * `| decolorize`: ANSI colour and cursor sequences are removed from the line. Lines without
 * an escape character are returned untouched without running the expression.
 */
import { compileRegex } from '../../../regex/index.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { NO_LABELS_READ, type Stage } from './stage.js';

/** ANSI_PATTERN matches one escape sequence (CSI and OSC forms). */
const ANSI_PATTERN =
  '[\\x{1b}\\x{9b}][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\\x{07})|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))';

const ansi = compileRegex(ANSI_PATTERN);

/** stripAnsi removes ANSI escape sequences from `line`. */
export function stripAnsi(line: string): string {
  if (line.indexOf('\u001b') < 0 && line.indexOf('\u009b') < 0) return line;
  return ansi.replaceAll(line, '');
}

/** Decolorize is the decolorize stage. */
export class Decolorize implements Stage {
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = true;
  readonly isParser = false;
  readonly readsLine = true;

  process(_timestampNs: bigint, line: string, _labels: LabelsBuilder): string | null {
    return stripAnsi(line);
  }
}
