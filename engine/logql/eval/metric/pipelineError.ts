/**
 * The failure of a metric query whose pipeline marked lines with `__error__`: Loki refuses to
 * aggregate such samples silently and tells the user how to skip them. The message is Loki's,
 * so users can search for it.
 */
import { EngineError } from '../../../errors.js';
import type { Labels } from '../../../storage/labels.js';
import { formatLabelSet } from '../labelSet.js';
import { ERROR_LABEL, PRESERVE_ERROR_LABEL } from '../labelsBuilder.js';

/** isFailedSeries tells whether a series carries an error the query did not ask to keep. */
export function isFailedSeries(labels: Labels): boolean {
  return labels[ERROR_LABEL] !== undefined && labels[PRESERVE_ERROR_LABEL] !== 'true';
}

/** pipelineError builds the error for a series with `__error__`. */
export function pipelineError(labels: Labels): EngineError {
  const type = labels[ERROR_LABEL] ?? '';
  return new EngineError(
    'COMPILE_ERROR',
    `pipeline error: '${type}' for series: '${formatLabelSet(labels)}'.\n` +
      `Use a label filter to intentionally skip this error. (e.g | __error__!="${type}").\n` +
      `To skip all potential errors you can match empty errors.(e.g __error__="")\n` +
      `The label filter can also be specified after unwrap. (e.g | unwrap latency | __error__="" )\n`,
  );
}
