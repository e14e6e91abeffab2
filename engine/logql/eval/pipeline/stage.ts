/**
 * The contract every pipeline stage keeps, Loki's: take a line's timestamp, the line and the
 * mutable labels of that line, return the new line, or null to drop it. Stages are built once
 * per query and shared by every stream; per-line state lives only in the LabelsBuilder.
 *
 * What a stage needs from outside the line, and what it does to the line, is declared by the
 * stage itself, so a new stage cannot be added without saying it: the timestamp is an argument
 * of every call; the labels a stage reads (which decide whether parsers may skip extraction),
 * whether it rewrites the line (which line filters may not move past) and whether it parses
 * the line into labels (which keeps an earlier line_format) are members every stage defines.
 */
import type { LabelsBuilder } from '../labelsBuilder.js';
import type { FoundValues } from './wantedKeys.js';

/** Stage is one compiled pipeline stage. */
export interface Stage {
  /**
   * process returns the (possibly rewritten) line, or null when the line is dropped.
   * `timestampNs` is the line's time; callers may pass UNREAD_TIMESTAMP only to a pipeline
   * none of whose stages reads the timestamp (see readsTimestamp).
   */
  process(timestampNs: bigint, line: string, labels: LabelsBuilder): string | null;
  /**
   * requiredLabelNames lists the labels this stage reads (Loki's RequiredLabelNames): when
   * no stage and no later step of the query reads a label, parsers may skip extraction.
   */
  readonly requiredLabelNames: readonly string[];
  /**
   * readsTimestamp tells whether process() looks at its timestamp, so pipelines without
   * such a stage spare callers reading a BigInt per line.
   */
  readonly readsTimestamp: boolean;
  /**
   * rewritesLine tells whether process() may return a line other than the one it was given:
   * line filters are moved ahead of every stage that keeps the line, never past one that
   * rewrites it.
   */
  readonly rewritesLine: boolean;
  /**
   * isParser tells whether the stage reads the line into labels: a line_format whose output no
   * parser and no line filter reads may be left out of metric queries, as Loki does.
   */
  readonly isParser: boolean;
  /**
   * readsLine tells whether process() looks at the line's text: stages that do not may run
   * after a parser that read the line from its stored bytes (AsciiParser) without the text
   * ever being made.
   */
  readonly readsLine: boolean;
}

/**
 * What an AsciiParser (and StreamPipeline.processAscii) made of a line: kept (its labels are
 * in the builder), dropped, or left for process() because the line can be read only as text.
 */
export const ASCII_KEPT = 0;
export const ASCII_DROPPED = 1;
export const ASCII_NEEDS_TEXT = 2;
export type AsciiOutcome = typeof ASCII_KEPT | typeof ASCII_DROPPED | typeof ASCII_NEEDS_TEXT;

/**
 * ValueGate looks at the values a parser found on a line's bytes, before any label string is
 * made, for the label filter right after the parser: false when that filter surely drops the
 * line, true when it keeps it or the bytes cannot tell. Most lines a filter such as
 * `status >= 500` meets are dropped, and making their labels was most of their cost.
 */
export type ValueGate = (found: FoundValues, bytes: Uint8Array) => boolean;

/**
 * AsciiParser is a parser that can also read a line held as ASCII bytes, as a log segment
 * stores it, so the line's string need not be made: processAscii sets exactly the labels
 * process() would and answers ASCII_KEPT; or, given a gate that rejects the values found,
 * sets nothing and answers ASCII_DROPPED; or sets nothing and answers ASCII_NEEDS_TEXT when
 * this line needs process() (anything the byte reader leaves to the text one: escapes, nested
 * values, a malformed line and its error).
 */
export interface AsciiParser extends Stage {
  processAscii(bytes: Uint8Array, start: number, end: number, labels: LabelsBuilder, gate?: ValueGate): AsciiOutcome;
  /** readsAscii tells whether processAscii can read lines for a pipeline with these hints (it then needs the text only for unusual lines). */
  readsAscii(wanted: ReadonlySet<string> | undefined, noLabels: boolean): boolean;
}

/** isAsciiParser tells whether a stage can read lines from their bytes. */
export function isAsciiParser(stage: Stage): stage is AsciiParser {
  return typeof (stage as Partial<AsciiParser>).processAscii === 'function';
}

/**
 * UNREAD_TIMESTAMP is the timestamp passed to pipelines that declared they read none: a
 * constant, so the per-line call allocates nothing.
 */
export const UNREAD_TIMESTAMP = 0n;

/** NO_LABELS_READ is the requiredLabelNames of a stage that reads no label. */
export const NO_LABELS_READ: readonly string[] = Object.freeze([]);

/** LineTest is a compiled line filter: true keeps the line. */
export type LineTest = (line: string) => boolean;
