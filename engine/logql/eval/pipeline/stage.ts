/**
 * The contract every pipeline stage keeps, Loki's: take a line and the mutable labels of
 * that line, return the new line, or null to drop it. Stages are built once per query and
 * shared by every stream; per-line state lives only in the LabelsBuilder.
 */
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { LabelsBuilder } from '../labels-builder.js';

/**
 * LineContext carries what a few stages need besides the line: its timestamp, for templates,
 * and the query's memory budget, which bounds what a template may produce.
 */
export interface LineContext {
  /** timestampNs is the current line's time; set by the caller before process(). */
  timestampNs: bigint;
  memory?: MemoryBudget;
}

/** Stage is one compiled pipeline stage. */
export interface Stage {
  /** process returns the (possibly rewritten) line, or null when the line is dropped. */
  process(line: string, labels: LabelsBuilder): string | null;
}

/** LineTest is a compiled line filter: true keeps the line. */
export type LineTest = (line: string) => boolean;
