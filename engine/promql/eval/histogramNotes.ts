/**
 * The annotations Prometheus attaches to queries over native histograms, with its exact
 * wording, so every operator raises them the same way.
 */
import { quoteGoString } from '../../common/quote.js';
import type { PositionRange } from '../../errors.js';
import type { Annotations } from './annotations.js';

/** HistogramOperation names what combined two histograms, for the collision and reconciliation notes. */
export type HistogramOperation = 'addition' | 'subtraction' | 'aggregation';

/** HistogramNotes raises histogram annotations on one evaluation's collector. */
export class HistogramNotes {
  constructor(private readonly annotations: Annotations) {}

  mixedFloatsAndHistograms(metricName: string, pos: PositionRange): void {
    this.annotations.warn(`encountered a mix of histograms and floats for metric name ${quoteGoString(metricName)}`, pos);
  }

  mixedFloatsAndHistogramsInAggregation(pos: PositionRange): void {
    this.annotations.warn('encountered a mix of histograms and floats for aggregation', pos);
  }

  notCounter(metricName: string, pos: PositionRange): void {
    this.annotations.warn(`this native histogram metric is not a counter: ${quoteGoString(metricName)}`, pos);
  }

  notGauge(metricName: string, pos: PositionRange): void {
    this.annotations.warn(`this native histogram metric is not a gauge: ${quoteGoString(metricName)}`, pos);
  }

  mixedExponentialAndCustom(metricName: string, pos: PositionRange): void {
    this.annotations.warn(`vector contains a mix of histograms with exponential and custom buckets schemas for metric name ${quoteGoString(metricName)}`, pos);
  }

  ignoredInMixedRange(metricName: string, pos: PositionRange): void {
    this.annotations.info(`ignored histograms in a range containing both floats and histograms for metric name ${quoteGoString(metricName)}`, pos);
  }

  ignoredInAggregation(aggregation: string, pos: PositionRange): void {
    this.annotations.info(`ignored histogram in ${aggregation} aggregation`, pos);
  }

  counterResetCollision(operation: HistogramOperation, pos: PositionRange): void {
    this.annotations.warn(`conflicting counter resets during histogram ${operation}`, pos);
  }

  customBucketsReconciled(operation: HistogramOperation, pos: PositionRange): void {
    this.annotations.info(`mismatched custom buckets were reconciled during ${operation}`, pos);
  }

  incompatibleTypes(operator: string, lhsType: string, rhsType: string, pos: PositionRange): void {
    this.annotations.info(`incompatible sample types encountered for binary operator ${quoteGoString(operator)}: ${lhsType} ${operator} ${rhsType}`, pos);
  }

  incompatibleBucketLayout(operator: string, pos: PositionRange): void {
    this.annotations.warn(`incompatible bucket layout encountered for binary operator ${operator}`, pos);
  }
}
