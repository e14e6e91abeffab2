/**
 * StepSeries is one series valued at every step of a query grid: `values[i]` counts only where
 * `present[i]` is 1. A missing point is not NaN, because NaN is a legitimate sample value, so
 * presence is a flag of its own. Both query languages evaluate instant-vector expressions over
 * this shape, which lets operators run flat loops over steps without allocating per sample.
 * The label type is a parameter because each language identifies series its own way: PromQL by
 * a storage label set, LogQL by an interned set with its key.
 */
export interface StepSeries<SeriesLabels> {
  labels: SeriesLabels;
  values: Float64Array;
  present: Uint8Array;
}
