/**
 * The mean of histograms as Prometheus' avg and avg_over_time compute it: a compensated running
 * sum divided by the count at the end, which is the more accurate while it lasts, until adding
 * a histogram would overflow the sum somewhere (count, sum, zero count or a bucket reaching an
 * infinity). From then on the mean is kept incrementally: the sum so far divided by the count
 * so far, and each further histogram h of the n seen folds in as mean·(n-1)/n + h/n, the
 * compensation terms scaled alongside. Averages of histograms whose counts lie near the largest
 * float then come out finite, as Prometheus' do.
 */
import { CompensatedSum } from './compensatedSum.js';
import { divide, type CombineResult, type FloatHistogram } from './floatHistogram.js';

/** CompensatedMean accumulates histograms; combine's HistogramError propagates from add. */
export class CompensatedMean {
  private n = 0;
  private acc = new CompensatedSum();
  private incremental = false;

  /** add adds `h`, returning what combining reported (null for the first histogram). */
  add(h: FloatHistogram): CombineResult | null {
    this.n++;
    if (this.n === 1) return this.acc.add(h);
    const n = this.n;
    if (!this.incremental) {
      const next = this.acc.clone();
      const r = next.add(h);
      if (!next.overflowed()) {
        this.acc = next;
        return r;
      }
      // The direct sum would overflow: continue from the mean of the histograms so far.
      this.incremental = true;
      this.acc = this.acc.divided(n - 1);
    }
    const next = this.acc.scaled((n - 1) / n);
    const r = next.add(divide(h, n));
    this.acc = next;
    return r;
  }

  /** count is how many histograms were added. */
  get count(): number {
    return this.n;
  }

  /** result is the mean, or undefined when nothing was added. */
  result(): FloatHistogram | undefined {
    if (this.n === 0) return undefined;
    return (this.incremental ? this.acc : this.acc.divided(this.n)).result();
  }
}
