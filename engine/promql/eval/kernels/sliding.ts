/**
 * Sliding-window aggregation for range functions whose windows overlap (range longer than the
 * step). A window is split into a front part, for which suffix aggregates were computed once
 * right to left, and a back part folded left to right as samples enter; a query combines the
 * two. When the window start passes the front, the back is turned into the new front. Every
 * sample is thus folded a bounded number of times however many windows contain it (the
 * "two stacks" technique), with no subtraction, so sums stay compensated and extremes exact.
 *
 * The subclasses hold their state in typed arrays sized to the series, one slot per sample.
 * The sum, avg, min and max kernels use the same technique written out in one loop each
 * (overTime.ts `sumWindows`, `extremeWindows`), being the ones dashboards run over many series.
 */

/** NO_SAMPLES is the series a window starts with before it is bound to one. */
const NO_SAMPLES = new Float64Array(0);

/**
 * grownCapacity sizes reused suffix arrays: at least `needed`, and at least double what they
 * were, so a kernel that meets longer and longer series reallocates a logarithmic number of times.
 */
function grownCapacity(current: number, needed: number): number {
  return Math.max(needed, current * 2);
}

/** SlidingWindow manages the front/back split over sample indices [lo, mid) and [mid, hi). */
export abstract class SlidingWindow {
  protected lo = 0;
  protected mid = 0;
  protected hi = 0;

  /** reset empties the window, positioned at sample `pos`. */
  reset(pos: number): void {
    this.lo = pos;
    this.mid = pos;
    this.hi = pos;
    this.clearBack();
  }

  /** advance moves the window to [newLo, newHi); both bounds only ever grow. */
  advance(newLo: number, newHi: number): void {
    if (newLo >= this.hi) {
      this.reset(newLo);
    } else if (newLo > this.lo) {
      if (newLo >= this.mid) {
        this.buildSuffix(newLo, this.hi);
        this.mid = this.hi;
        this.clearBack();
      }
      this.lo = newLo;
    }
    for (let j = this.hi; j < newHi; j++) this.pushBack(j);
    if (newHi > this.hi) this.hi = newHi;
  }

  /** frontEmpty and backEmpty say which parts the current window has. */
  protected get frontEmpty(): boolean {
    return this.lo === this.mid;
  }

  protected get backEmpty(): boolean {
    return this.mid === this.hi;
  }

  /** buildSuffix computes, for i from `to - 1` down to `from`, the aggregate of samples [i, to). */
  protected abstract buildSuffix(from: number, to: number): void;
  /** pushBack folds sample `j` into the back aggregate. */
  protected abstract pushBack(j: number): void;
  /** clearBack empties the back aggregate. */
  protected abstract clearBack(): void;
}

/**
 * SlidingVariance keeps (count, mean, sum of squared deviations) per part, folded with Welford's
 * update and combined with Chan's formula.
 */
export class SlidingVariance extends SlidingWindow {
  private sufMean: Float64Array;
  private sufM2: Float64Array;
  private backN = 0;
  private backMean = 0;
  private backM2 = 0;

  constructor(private vals: Float64Array = NO_SAMPLES) {
    super();
    this.sufMean = new Float64Array(vals.length);
    this.sufM2 = new Float64Array(vals.length);
  }

  /** bind moves the window to another series, keeping the suffix arrays when they are long enough. */
  bind(vals: Float64Array): void {
    this.vals = vals;
    if (this.sufMean.length < vals.length) {
      const capacity = grownCapacity(this.sufMean.length, vals.length);
      this.sufMean = new Float64Array(capacity);
      this.sufM2 = new Float64Array(capacity);
    }
  }

  protected buildSuffix(from: number, to: number): void {
    let n = 0;
    let mean = 0;
    let m2 = 0;
    for (let i = to - 1; i >= from; i--) {
      const v = this.vals[i];
      n++;
      const delta = v - mean;
      mean += delta / n;
      m2 += delta * (v - mean);
      this.sufMean[i] = mean;
      this.sufM2[i] = m2;
    }
  }

  protected pushBack(j: number): void {
    const v = this.vals[j];
    this.backN++;
    const delta = v - this.backMean;
    this.backMean += delta / this.backN;
    this.backM2 += delta * (v - this.backMean);
  }

  protected clearBack(): void {
    this.backN = 0;
    this.backMean = 0;
    this.backM2 = 0;
  }

  /** variance returns the population variance of the window. */
  variance(): number {
    if (this.frontEmpty) return this.backM2 / this.backN;
    const na = this.mid - this.lo;
    const ma = this.sufMean[this.lo];
    const m2a = this.sufM2[this.lo];
    if (this.backEmpty) return m2a / na;
    const nb = this.backN;
    const n = na + nb;
    const delta = this.backMean - ma;
    return (m2a + this.backM2 + ((delta * delta * na) / n) * nb) / n;
  }
}

/**
 * ExtremeMode picks the comparison of a min/max kernel. `>`/`<` keep the earliest of equal
 * extremes, `>=`/`<=` the latest (what ts_of_max_over_time reports). A NaN is replaced by any
 * later sample, so NaN wins only when every sample is NaN.
 */
export type ExtremeMode = '>' | '<' | '>=' | '<=';

/** better tells whether `candidate` replaces the running extreme `best`. */
export function better(mode: ExtremeMode, candidate: number, best: number): boolean {
  if (best !== best) return true;
  switch (mode) {
    case '>':
      return candidate > best;
    case '<':
      return candidate < best;
    case '>=':
      return candidate >= best;
    case '<=':
      return candidate <= best;
  }
}

/**
 * SlidingRegression keeps centred least-squares statistics of (time, value) per part: count,
 * means, and co-moments Sxx and Sxy, combined with Chan's formula. Times are seconds relative to
 * the series' first sample so that magnitudes stay small.
 */
export class SlidingRegression extends SlidingWindow {
  private sufMeanX: Float64Array;
  private sufMeanY: Float64Array;
  private sufSxx: Float64Array;
  private sufSxy: Float64Array;
  private backN = 0;
  private backMeanX = 0;
  private backMeanY = 0;
  private backSxx = 0;
  private backSxy = 0;
  /** Results of the last fit() call. */
  n = 0;
  meanX = 0;
  meanY = 0;
  sxx = 0;
  sxy = 0;

  constructor(
    private xs: Float64Array = NO_SAMPLES,
    private vals: Float64Array = NO_SAMPLES,
  ) {
    super();
    const len = vals.length;
    this.sufMeanX = new Float64Array(len);
    this.sufMeanY = new Float64Array(len);
    this.sufSxx = new Float64Array(len);
    this.sufSxy = new Float64Array(len);
  }

  /**
   * bind moves the window to another series, keeping the suffix arrays when they are long
   * enough: made per series, they and their collection were a third of a 1,000-series deriv.
   */
  bind(xs: Float64Array, vals: Float64Array): void {
    this.xs = xs;
    this.vals = vals;
    if (this.sufMeanX.length < vals.length) {
      const capacity = grownCapacity(this.sufMeanX.length, vals.length);
      this.sufMeanX = new Float64Array(capacity);
      this.sufMeanY = new Float64Array(capacity);
      this.sufSxx = new Float64Array(capacity);
      this.sufSxy = new Float64Array(capacity);
    }
  }

  protected buildSuffix(from: number, to: number): void {
    let n = 0;
    let mx = 0;
    let my = 0;
    let sxx = 0;
    let sxy = 0;
    for (let i = to - 1; i >= from; i--) {
      const x = this.xs[i];
      const y = this.vals[i];
      n++;
      const dx = x - mx;
      mx += dx / n;
      my += (y - my) / n;
      sxx += dx * (x - mx);
      sxy += dx * (y - my);
      this.sufMeanX[i] = mx;
      this.sufMeanY[i] = my;
      this.sufSxx[i] = sxx;
      this.sufSxy[i] = sxy;
    }
  }

  protected pushBack(j: number): void {
    const x = this.xs[j];
    const y = this.vals[j];
    this.backN++;
    const dx = x - this.backMeanX;
    this.backMeanX += dx / this.backN;
    this.backMeanY += (y - this.backMeanY) / this.backN;
    this.backSxx += dx * (x - this.backMeanX);
    this.backSxy += dx * (y - this.backMeanY);
  }

  protected clearBack(): void {
    this.backN = 0;
    this.backMeanX = 0;
    this.backMeanY = 0;
    this.backSxx = 0;
    this.backSxy = 0;
  }

  /** fit combines the window's statistics into the public result fields. */
  fit(): void {
    if (this.frontEmpty) {
      this.n = this.backN;
      this.meanX = this.backMeanX;
      this.meanY = this.backMeanY;
      this.sxx = this.backSxx;
      this.sxy = this.backSxy;
      return;
    }
    const na = this.mid - this.lo;
    const mxa = this.sufMeanX[this.lo];
    const mya = this.sufMeanY[this.lo];
    const sxxa = this.sufSxx[this.lo];
    const sxya = this.sufSxy[this.lo];
    if (this.backEmpty) {
      this.n = na;
      this.meanX = mxa;
      this.meanY = mya;
      this.sxx = sxxa;
      this.sxy = sxya;
      return;
    }
    const nb = this.backN;
    const n = na + nb;
    const dx = this.backMeanX - mxa;
    const dy = this.backMeanY - mya;
    const w = (na * nb) / n;
    this.n = n;
    this.meanX = mxa + (dx * nb) / n;
    this.meanY = mya + (dy * nb) / n;
    this.sxx = sxxa + this.backSxx + dx * dx * w;
    this.sxy = sxya + this.backSxy + dx * dy * w;
  }
}
