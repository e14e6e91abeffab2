/**
 * The dataset sizes the peer benchmark knows. `small` and `large` are the sizes the README
 * reports; `tiny` is small enough for CI to run the whole harness, peers included, in seconds.
 */
export type ScaleName = 'tiny' | 'small' | 'large';

export interface Scale {
  name: ScaleName;
  /** Counter series: instances × 5 routes × 4 status codes. */
  counterSeries: number;
  /** Classic histogram bucket series: (instance, route) pairs × 10 `le` buckets. */
  histogramSeries: number;
  /** Span of the data, ending at the dataset's end time. */
  hours: number;
  /** Total log lines spread evenly over the span. */
  logLines: number;
  /** Range-query windows (hours) the query suite asks for, each ending at the dataset's end. */
  windowsHours: number[];
}

export const SCALES: Readonly<Record<ScaleName, Scale>> = {
  tiny: { name: 'tiny', counterSeries: 40, histogramSeries: 20, hours: 1, logLines: 5_000, windowsHours: [1] },
  small: { name: 'small', counterSeries: 1_000, histogramSeries: 200, hours: 6, logLines: 1_000_000, windowsHours: [1, 6] },
  large: { name: 'large', counterSeries: 10_000, histogramSeries: 2_000, hours: 24, logLines: 10_000_000, windowsHours: [1, 6, 24] },
};

export function isScaleName(name: string): name is ScaleName {
  return Object.hasOwn(SCALES, name);
}
