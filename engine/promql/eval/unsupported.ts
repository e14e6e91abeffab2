/**
 * UnsupportedFeatureError reports a query that is valid PromQL but needs a feature this engine
 * does not implement yet (native histograms, info(), ...). It is a COMPILE_ERROR for clients,
 * and a distinct class so that callers such as the conformance runner can tell "not supported"
 * apart from "wrong".
 */
import { EngineError, type PositionRange } from '../../errors.js';

/** UnsupportedFeatureError carries the name of the missing feature in `feature`. */
export class UnsupportedFeatureError extends EngineError {
  readonly feature: string;

  constructor(feature: string, position?: PositionRange) {
    super('COMPILE_ERROR', `${feature} is not supported`, position);
    this.name = 'UnsupportedFeatureError';
    this.feature = feature;
  }
}
